#ifndef CSCANZXING_H
#define CSCANZXING_H
/*
 * scand's C API over zxing-cpp (3.1.1, static, from scripts/build-zxing). Same rules as CScanOpenCV:
 *  - every entry point catches C++ exceptions and returns a status; none escapes;
 *  - result arrays are owned by the caller and freed with scz_results_free;
 *  - error messages go into a caller buffer (always NUL-terminated).
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum scz_status {
    SCZ_OK = 0,
    SCZ_ERR_ARGUMENT = 1,
    SCZ_ERR_ZXING = 2,   /* zxing raised an exception */
    SCZ_ERR_MEMORY = 3
} scz_status;

/* Formats, as a bit set (independent of zxing's own numbering). */
enum {
    SCZ_QR = 1 << 0, SCZ_MICRO_QR = 1 << 1, SCZ_EAN13 = 1 << 2, SCZ_EAN8 = 1 << 3, SCZ_UPCA = 1 << 4,
    SCZ_UPCE = 1 << 5, SCZ_CODE39 = 1 << 6, SCZ_CODE93 = 1 << 7, SCZ_CODE128 = 1 << 8, SCZ_ITF = 1 << 9,
    SCZ_CODABAR = 1 << 10, SCZ_DATABAR = 1 << 11, SCZ_DATABAR_EXP = 1 << 12, SCZ_PDF417 = 1 << 13,
    SCZ_AZTEC = 1 << 14, SCZ_DATA_MATRIX = 1 << 15
};

/** A run of payload bytes in one character set, as the symbol declares it. */
typedef struct scz_segment {
    int offset;             /* first byte of the run in `bytes` */
    int eci;                /* the ECI number that sets its character set (ISO/IEC 18004 table), or -1: none
                               declared (the reader guesses) */
    int from_mode;          /* 1: the character set comes from the symbology's own mode, not an ECI
                               (QR Kanji mode: eci is 20, Shift JIS) */
} scz_segment;

/** One decoded symbol. */
typedef struct scz_result {
    uint32_t format;        /* one SCZ_* bit */
    uint8_t *bytes;         /* the payload's exact bytes (ECI designators removed), malloc'ed */
    size_t length;
    char *text;             /* zxing's own UTF-8 rendering of the payload (for cross-checks), malloc'ed */
    int has_eci;            /* the symbol carries at least one ECI designator */
    int gs1;                /* FNC1 in first position: a GS1 element string, fields separated by GS (0x1D) */
    scz_segment *segments;  /* character-set runs in payload order, malloc'ed; segment_count ≥ 1 when length > 0 */
    int segment_count;
    int content_binary;     /* zxing's content type says binary */
    int line_count;         /* scan lines that agreed (linear codes), 0 for matrix codes */
    /* Structured append (QR, Data Matrix, PDF417 macro, Aztec): the symbol's 0-based place in its sequence and
       the sequence's size, -1 and -1 when it is not part of one; the sequence's identifier (QR: its parity),
       NUL-terminated, truncated to fit. */
    int sequence_index;
    int sequence_size;
    char sequence_id[64];
    /* The symbol's own top-left, top-right, bottom-right, bottom-left corners, in pixels of the image given. */
    double corners[8];
} scz_result;

typedef struct scz_options {
    uint32_t formats;       /* SCZ_* bit set; 0 means none (nothing is read) */
    int try_harder;         /* spend more time (more scan lines, more finder patterns) */
    int try_rotate;         /* also scan linear codes at 90 degrees */
    int try_downscale;      /* also try zxing's own downscaled copies of large images. Debian's 1.4.0 is built
                               with assertions on and aborts merging linear results from its pyramid
                               (Result::operator==, lineCount() == 1): keep 0 when linear formats are on. */
    int validate_itf_checksum;
    int min_line_count;     /* scan lines that must agree on a linear code (zxing default 2) */
    int max_symbols;        /* 0 = no limit */
    int fixed_threshold;    /* 1: binarise at a fixed mid-grey instead of zxing's local average (cheaper, for a
                               quick look on frames zbar has already read; weaker under uneven light) */
    int try_invert;         /* 1: also read the image's inverted binarisation (zxing's own tryInvert, sharing the
                               binariser's work); 0: as given only (scand's passes make their own inverted twins) */
} scz_options;

/** Reads every symbol in an 8-bit grey image (width×height, rows `stride` bytes apart).
 *  On SCZ_OK, *results (may be NULL when *count is 0) must be freed with scz_results_free. */
scz_status scz_read(const uint8_t *luma, int width, int height, int stride, const scz_options *options,
                    scz_result **results, int *count, char *message, size_t message_capacity);

void scz_results_free(scz_result *results, int count);

/** zxing-cpp's version, e.g. "1.4.0". */
const char *scz_version(void);

#ifdef __cplusplus
}
#endif
#endif
