#include "kernel/microkernel.hpp"

#include <algorithm>

namespace lego::kernel {

namespace {

std::string stride_of(const AccessShape& a, const std::string& var) {
  auto it = a.strides.find(var);
  return it == a.strides.end() ? "not affine" : std::to_string(it->second);
}

// Every tile's destination rows start on a vector boundary: the constant
// term and each loop's step times its stride are multiples of the tile.
bool rows_aligned(const InnerLoops& loops, const AccessShape& dst, std::int64_t dst_row, int tile) {
  if (!dst.constant || *dst.constant % tile != 0 || dst_row % tile != 0) return false;
  for (const auto& [var, stride] : dst.strides) {
    auto step = loops.steps.find(var);
    if (step == loops.steps.end() || (stride * step->second) % tile != 0) return false;
  }
  return true;
}

}  // namespace

std::optional<TransposeChoice> choose_transpose(const InnerLoops& loops, const AccessShape& src, const AccessShape& dst, bool stream,
                                                const target::Target& target, std::string& why_not) {
  if (src.element_bytes != 4 || dst.element_bytes != 4) {
    why_not = "register transposes are for 4-byte elements";
    return std::nullopt;
  }
  const auto stride = [](const AccessShape& a, const std::string& var) {
    auto it = a.strides.find(var);
    return it == a.strides.end() ? std::optional<std::int64_t>() : it->second;
  };
  const auto so = stride(src, loops.outer), si = stride(src, loops.inner), dout = stride(dst, loops.outer), di = stride(dst, loops.inner);
  if (!so || !si || !dout || !di) {
    why_not = "an access is not affine in the innermost loops (source strides " + stride_of(src, loops.outer) + ", " +
              stride_of(src, loops.inner) + "; destination " + stride_of(dst, loops.outer) + ", " + stride_of(dst, loops.inner) + ")";
    return std::nullopt;
  }
  TransposeChoice c;
  if (*si == 1 && *dout == 1) {  // source rows along the outer loop, destination rows along the inner one
    c.src_row = *so;
    c.dst_row = *di;
  } else if (*so == 1 && *di == 1) {
    c.src_row = *si;
    c.dst_row = *dout;
  } else {
    why_not = "the innermost tile does not swap two dimensions (source strides " + std::to_string(*so) + ", " + std::to_string(*si) +
              "; destination " + std::to_string(*dout) + ", " + std::to_string(*di) + ")";
    return std::nullopt;
  }
  // AVX2 and wider take 16x16 tiles: a destination row of 16 floats is a
  // whole 64-byte line (two 8-wide stores on AVX2), which streamed stores need.
  const int widest = target.lanes(4) >= 8 ? 16 : target.lanes(4);
  for (int tile = widest; tile >= 4; tile /= 2) {
    if (loops.outer_extent % tile != 0 || loops.inner_extent % tile != 0) continue;
    c.tile = tile;
    break;
  }
  if (c.tile == 0) {
    why_not = "the innermost loops (" + std::to_string(loops.outer_extent) + " x " + std::to_string(loops.inner_extent) +
              ") are not multiples of 4";
    return std::nullopt;
  }
  // NEON has no streaming store instruction a compiler exposes.
  if (target.arch == target::Arch::AArch64) stream = false;
  const std::string size = std::to_string(c.tile) + "x" + std::to_string(c.tile);
  c.note = size + " register transpose (" + target.level() + ") over loops " + loops.outer + ", " + loops.inner;
  if (stream) {
    InnerLoops stepped = loops;
    stepped.steps[loops.outer] = stepped.steps[loops.inner] = c.tile;
    c.stream = rows_aligned(stepped, dst, c.dst_row, c.tile);
    c.note += c.stream ? ", streaming stores" : "; streaming stores not used: the destination rows are not all vector-aligned";
  }
  return c;
}

std::string microkernel_prelude(const target::Target& target) {
  // Whole-tile moves through registers. Rows are loaded unaligned; streamed
  // stores need aligned rows, which choose_transpose has proved. Each tile
  // size has a scalar fallback, so the code builds for any machine.
  // The header of whatever the compiler targets, not only the model's: the
  // exported source still builds (with its fallbacks) for another ISA.
  std::string out = "#if defined(__ARM_NEON)\n#include <arm_neon.h>\n#elif defined(__SSE__)\n#include <immintrin.h>\n#endif\n";
  out += R"(#if defined(__ARM_NEON)
template <bool Stream>
static inline __attribute__((always_inline)) void lego_transpose_4x4(const float* s, int64_t ss, float* d, int64_t ds) {
  const float32x4_t r0 = vld1q_f32(s), r1 = vld1q_f32(s + ss), r2 = vld1q_f32(s + 2 * ss), r3 = vld1q_f32(s + 3 * ss);
  const float32x4x2_t a = vtrnq_f32(r0, r1), b = vtrnq_f32(r2, r3);
  vst1q_f32(d, vcombine_f32(vget_low_f32(a.val[0]), vget_low_f32(b.val[0])));
  vst1q_f32(d + ds, vcombine_f32(vget_low_f32(a.val[1]), vget_low_f32(b.val[1])));
  vst1q_f32(d + 2 * ds, vcombine_f32(vget_high_f32(a.val[0]), vget_high_f32(b.val[0])));
  vst1q_f32(d + 3 * ds, vcombine_f32(vget_high_f32(a.val[1]), vget_high_f32(b.val[1])));
}
#elif defined(__SSE__)
template <bool Stream>
static inline __attribute__((always_inline)) void lego_transpose_4x4(const float* s, int64_t ss, float* d, int64_t ds) {
  __m128 r0 = _mm_loadu_ps(s), r1 = _mm_loadu_ps(s + ss), r2 = _mm_loadu_ps(s + 2 * ss), r3 = _mm_loadu_ps(s + 3 * ss);
  _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
  const __m128 o[4] = {r0, r1, r2, r3};
  for (int k = 0; k < 4; ++k) {
    if (Stream) _mm_stream_ps(d + k * ds, o[k]);
    else _mm_storeu_ps(d + k * ds, o[k]);
  }
}
#else
template <bool Stream>
static inline void lego_transpose_4x4(const float* s, int64_t ss, float* d, int64_t ds) {
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) d[c * ds + r] = s[r * ss + c];
}
#endif
)";
  if (target.lanes(4) >= 8)
    out += R"(#if defined(__AVX2__)
// The 8x8 tile's rows transposed into registers: o[k] is the tile's column k.
static inline __attribute__((always_inline)) void lego_transpose_8x8_regs(const float* s, int64_t ss, __m256 o[8]) {
  const __m256 r0 = _mm256_loadu_ps(s), r1 = _mm256_loadu_ps(s + ss), r2 = _mm256_loadu_ps(s + 2 * ss), r3 = _mm256_loadu_ps(s + 3 * ss);
  const __m256 r4 = _mm256_loadu_ps(s + 4 * ss), r5 = _mm256_loadu_ps(s + 5 * ss), r6 = _mm256_loadu_ps(s + 6 * ss), r7 = _mm256_loadu_ps(s + 7 * ss);
  const __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1), t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
  const __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5), t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE), u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE), u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  o[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  o[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  o[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  o[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  o[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  o[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  o[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  o[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
template <bool Stream>
static inline __attribute__((always_inline)) void lego_transpose_8x8(const float* s, int64_t ss, float* d, int64_t ds) {
  __m256 o[8];
  lego_transpose_8x8_regs(s, ss, o);
  for (int k = 0; k < 8; ++k) {
    if (Stream) _mm256_stream_ps(d + k * ds, o[k]);
    else _mm256_storeu_ps(d + k * ds, o[k]);
  }
}
#else
template <bool Stream>
static inline void lego_transpose_8x8(const float* s, int64_t ss, float* d, int64_t ds) {
  for (int r = 0; r < 8; ++r)
    for (int c = 0; c < 8; ++c) d[c * ds + r] = s[r * ss + c];
}
#endif
)";
  if (target.lanes(4) >= 8)
    out += R"(#if defined(__AVX512F__)
template <bool Stream>
static inline __attribute__((always_inline)) void lego_transpose_16x16(const float* s, int64_t ss, float* d, int64_t ds) {
  __m512 r[16], t[16], u[16];
  for (int k = 0; k < 16; ++k) r[k] = _mm512_loadu_ps(s + k * ss);
  for (int k = 0; k < 16; k += 2) {
    t[k] = _mm512_unpacklo_ps(r[k], r[k + 1]);
    t[k + 1] = _mm512_unpackhi_ps(r[k], r[k + 1]);
  }
  for (int k = 0; k < 16; k += 4) {
    u[k] = _mm512_shuffle_ps(t[k], t[k + 2], 0x44);
    u[k + 1] = _mm512_shuffle_ps(t[k], t[k + 2], 0xEE);
    u[k + 2] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0x44);
    u[k + 3] = _mm512_shuffle_ps(t[k + 1], t[k + 3], 0xEE);
  }
  for (int m = 0; m < 4; ++m) {
    const __m512 x0 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0x88), x1 = _mm512_shuffle_f32x4(u[m], u[4 + m], 0xDD);
    const __m512 y0 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0x88), y1 = _mm512_shuffle_f32x4(u[8 + m], u[12 + m], 0xDD);
    const __m512 o[4] = {_mm512_shuffle_f32x4(x0, y0, 0x88), _mm512_shuffle_f32x4(x1, y1, 0x88), _mm512_shuffle_f32x4(x0, y0, 0xDD),
                         _mm512_shuffle_f32x4(x1, y1, 0xDD)};
    for (int l = 0; l < 4; ++l) {
      if (Stream) _mm512_stream_ps(d + (4 * l + m) * ds, o[l]);
      else _mm512_storeu_ps(d + (4 * l + m) * ds, o[l]);
    }
  }
}
#elif defined(__AVX2__)
// AVX2: four 8x8 transposes, stored so that each destination row's two
// halves go out back to back: a streamed row is a whole 64-byte line, which
// write-combining sends as one (half lines of separate 8x8 tiles thrash it).
template <bool Stream>
static inline __attribute__((always_inline)) void lego_transpose_16x16(const float* s, int64_t ss, float* d, int64_t ds) {
  for (int h = 0; h < 16; h += 8) {
    __m256 lo[8], hi[8];
    lego_transpose_8x8_regs(s + h, ss, lo);
    lego_transpose_8x8_regs(s + 8 * ss + h, ss, hi);
    for (int k = 0; k < 8; ++k) {
      float* row = d + (h + k) * ds;
      if (Stream) {
        _mm256_stream_ps(row, lo[k]);
        _mm256_stream_ps(row + 8, hi[k]);
      } else {
        _mm256_storeu_ps(row, lo[k]);
        _mm256_storeu_ps(row + 8, hi[k]);
      }
    }
  }
}
#else
template <bool Stream>
static inline void lego_transpose_16x16(const float* s, int64_t ss, float* d, int64_t ds) {
  for (int r = 0; r < 16; r += 8)
    for (int c = 0; c < 16; c += 8) lego_transpose_8x8<Stream>(s + r * ss + c, ss, d + c * ds + r, ds);
}
#endif
)";
  // Streamed stores are weakly ordered: each thread fences its own before the region's barrier.
  return out + R"(static inline void lego_store_fence() {
#if defined(__SSE__) && !defined(__ARM_NEON)
  _mm_sfence();
#endif
}
)";
}

std::string transpose_call(const TransposeChoice& c, const std::string& src, const std::string& dst) {
  return "lego_transpose_" + std::to_string(c.tile) + "x" + std::to_string(c.tile) + "<" + (c.stream ? "true" : "false") + ">(&" + src +
         ", " + std::to_string(c.src_row) + ", &" + dst + ", " + std::to_string(c.dst_row) + ");";
}

}  // namespace lego::kernel
