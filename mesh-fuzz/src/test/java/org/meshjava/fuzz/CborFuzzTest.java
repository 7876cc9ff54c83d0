package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborDecodeException;
import org.meshjava.core.cbor.CborValue;

/** Canonical CBOR, under everything signed: accepted bytes re-encode to themselves. */
class CborFuzzTest {
  @FuzzTest(maxDuration = "20s")
  void decode(byte[] input) {
    Hostile.only(
        () -> {
          CborValue v = CanonicalCbor.decode(input);
          if (!Arrays.equals(v.encode(), input)) {
            throw new AssertionError("accepted but re-encodes differently");
          }
        },
        CborDecodeException.class);
  }
}
