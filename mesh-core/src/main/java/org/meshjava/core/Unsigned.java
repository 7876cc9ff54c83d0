package org.meshjava.core;

/** Range checks for the unsigned wire types of mesh/1. Package-private. */
final class Unsigned {
  static final long U32_MAX = 0xFFFF_FFFFL;

  private Unsigned() {}

  static long u32(String field, long value) {
    if (value < 0 || value > U32_MAX) {
      throw new IllegalArgumentException(field + " must be a u32 (0.." + U32_MAX + "): " + value);
    }
    return value;
  }

  static long u64(String field, long value) {
    if (value < 0) {
      throw new IllegalArgumentException(field + " must be non-negative: " + value);
    }
    return value;
  }
}
