/* carom — collision and contact physics in C11. The umbrella header. */
#ifndef CAROM_CAROM_H
#define CAROM_CAROM_H

#include "carom/math.h"
#include "carom/types.h"
#include "carom/collide.h"
#include "carom/shape.h"
#include "carom/world.h"
#include "carom/law_stronge.h"
#include "carom/surface.h"
#include "carom/checkpoint.h"

#define CAROM_VERSION_STRING "0.1.0"

#endif
