/* CRC-32 (IEEE, as zlib's crc32): the result format's integrity fields.
 * lib/crc32.c, shared by the image and the host tools. */
#ifndef CRC32_H
#define CRC32_H
#include <stdint.h>

uint32_t crc32(uint32_t crc, const void *buf, unsigned long len);

#endif
