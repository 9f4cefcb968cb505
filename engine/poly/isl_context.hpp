// One isl_ctx per scope, shared by the ISL bridge's users: errors come back
// as null results instead of aborting, and an optional operation quota
// bounds each question (0: none).
#pragma once

#include <isl/ctx.h>
#include <isl/options.h>

namespace lego::poly {

struct IslContext {
  isl_ctx* ctx = isl_ctx_alloc();
  explicit IslContext(unsigned long max_operations = 0) {
    isl_options_set_on_error(ctx, ISL_ON_ERROR_CONTINUE);
    if (max_operations) isl_ctx_set_max_operations(ctx, max_operations);
  }
  ~IslContext() { isl_ctx_free(ctx); }
  IslContext(const IslContext&) = delete;
  IslContext& operator=(const IslContext&) = delete;
};

}  // namespace lego::poly
