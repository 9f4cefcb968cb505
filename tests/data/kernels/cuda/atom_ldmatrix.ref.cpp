// What PTX's figure for ldmatrix says each lane receives, written from the
// figure (not from the atom tables the emulator uses): register j of lane l
// holds, of matrix j, row l / 4 and columns 2 (l % 4) and 2 (l % 4) + 1 (the
// first in the low half); with .trans, rows 2 (l % 4) and 2 (l % 4) + 1 of
// column l / 4.
extern "C" void lego_reference(const int32_t* X, int32_t* Y) {
  const bool trans = TRANSPOSED;
  for (int l = 0; l < 32; ++l)
    for (int j = 0; j < 4; ++j) {
      uint32_t halves[2];
      for (int h = 0; h < 2; ++h) {
        const int row = trans ? 2 * (l % 4) + h : l / 4, col = trans ? l / 4 : 2 * (l % 4) + h;
        halves[h] = (uint16_t)X[(8 * j + row) * 8 + col];
      }
      Y[l * 4 + j] = (int32_t)(halves[0] | halves[1] << 16);
    }
}
