package org.meshjava.fuzz;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Arrays;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.MalformedGrantException;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.jcp.SignedGrant;

/** What a client sends as a grant: the presentation, its chain and signed grants, revocations. */
class GrantFuzzTest {
  @FuzzTest(maxDuration = "20s")
  void presentation(byte[] input) {
    Hostile.only(() -> Presentation.decode(input), MalformedGrantException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void chain(byte[] input) {
    Hostile.only(
        () -> {
          GrantChain chain = GrantChain.decode(input);
          if (!Arrays.equals(chain.encode(), input)) {
            throw new AssertionError("accepted chain re-encodes differently");
          }
        },
        MalformedGrantException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void signedGrant(byte[] input) {
    Hostile.only(
        () -> {
          SignedGrant grant = SignedGrant.decode(input);
          if (!Arrays.equals(grant.encode(), input)) {
            throw new AssertionError("accepted grant re-encodes differently");
          }
        },
        MalformedGrantException.class);
  }

  @FuzzTest(maxDuration = "20s")
  void revocation(byte[] input) {
    Hostile.only(() -> Revocation.decode(input), MalformedGrantException.class);
  }
}
