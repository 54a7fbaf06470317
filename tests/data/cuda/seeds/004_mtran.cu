// Seed document: shared/seeds/004_edc7ae073c4fe74b.txt, one text line (PDF extraction), the substring from `__global__ void mtran(`, copied verbatim below this header.
// Defines needed: none
// Status: INCOMPLETE as extracted: the OCR turned blockIdx/threadIdx into `blockldx`/`threadldx` and the closing `}` is lost; lowering fails (unknown identifier / syntax error).
__global__ void mtran(float *odata, float* idata, int n){ int x = blockldx.x * blockDim.x + threadldx.x; int y = blockldx.y * blockDim.y + threadldx.y; odata[x*n + y] = idata[y*n + x];
