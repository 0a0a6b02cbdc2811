/* carom CLI — writing the replay page's data: JSON numbers, strings safe
 * inside an HTML <script>, and binary arrays as base64. */
#ifndef CAROM_CLI_WEB_JSON_H
#define CAROM_CLI_WEB_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* A JSON string; '<' is written \u003c so that the text can never close
 * the <script> element it sits in. */
void web_json_string(FILE *f, const char *s);
/* [v0,v1,...] with %.17g: reads back to the same doubles. */
void web_json_doubles(FILE *f, const double *v, size_t n, size_t stride);
/* "base64" of n floats (little-endian IEEE, as Float32Array reads them). */
void web_json_f32(FILE *f, const float *v, size_t n);
void web_json_u32(FILE *f, const uint32_t *v, size_t n);
/* Copies bytes into a <script> or <style> element, writing "</" before
 * "script" or "style" as "<\/": the same text to JavaScript (in strings,
 * templates and regular expressions alike) and to CSS, and it can no
 * longer end the element early. */
void web_raw_escaped(FILE *f, const unsigned char *s, size_t n);

#endif
