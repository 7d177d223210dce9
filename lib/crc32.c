/* CRC-32 (IEEE 802.3, reflected, as zlib) for the result lines.  Built for
 * the target and for the host checker (tools/logcheck.c), so both sides
 * agree by construction.  Bitwise: the lines are short and a 1 KiB table
 * would cost more image than it saves time. */
#include <stdint.h>
#include "crc32.h"

uint32_t crc32(uint32_t crc, const void *buf, unsigned long len)
{
	const unsigned char *p = buf;

	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1));
	}
	return ~crc;
}
