// Whole reads and writes on a descriptor, through short transfers and
// EINTR: the pipes and sockets between the worker, the zygotes and the
// kernels' processes, and the files the tools write.
#pragma once

#include <cstddef>

namespace lego::run {

// False when the descriptor failed or (for a read) ended first; errno says why.
bool write_all(int fd, const void* data, std::size_t size);
bool read_all(int fd, void* data, std::size_t size);

}  // namespace lego::run
