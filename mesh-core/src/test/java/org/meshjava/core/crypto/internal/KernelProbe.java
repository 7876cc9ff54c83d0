package org.meshjava.core.crypto.internal;

import java.util.HexFormat;

/** Run in a child JVM by {@link Blake3LargeTest}: prints the kernel chosen and a hash. */
final class KernelProbe {
  static final byte[] INPUT = new byte[3 * Blake3Large.UNIT_BYTES + 7];

  private KernelProbe() {}

  public static void main(String[] args) {
    System.out.println(
        Blake3Large.kernel()
            + " "
            + HexFormat.of().formatHex(Blake3Large.newHasher().update(INPUT).finish()));
  }
}
