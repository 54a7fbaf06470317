/* warpsim's <mma.h>: WMMA (nvcuda::wmma, the warp matrix operations of tensor cores) is not
   supported. A program may include this header; a kernel that uses WMMA is refused at its
   first use (file and line), and the program's other kernels run. */
#pragma once
#include <cuda_fp16.h>

namespace nvcuda {
namespace wmma {
}
}
