package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.meshjava.core.identity.DidKey;
import org.meshjava.core.identity.DidKeyException;

/** A party's identity as text: every grant, receipt and command line names parties by did:key. */
class IdentityFuzzTest {
  @FuzzTest(maxDuration = "60s")
  void didKey(byte[] input) {
    String text = new String(input, StandardCharsets.UTF_8);
    Hostile.only(
        () -> {
          DidKey key = DidKey.parse(text);
          if (!key.value().equals(text) || !DidKey.of(key.verificationKey()).equals(key)) {
            throw new AssertionError("accepted did:key is not its key's one encoding");
          }
        },
        DidKeyException.class);
  }
}
