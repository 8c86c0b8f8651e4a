#ifndef CARGON2_SHIM_H
#define CARGON2_SHIM_H
// Debian's libargon2 (apt: libargon2-dev; runtime libargon2-1): the reference Argon2 by its
// designers, used for password hashes (Credentials' Argon2id).
#include <argon2.h>
#endif
