package org.meshjava.jcp;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.function.UnaryOperator;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/** Fixed parties, times and requests for the tests. Keys come from fixed seeds. */
final class Fixture {
  static final SigningKey ORG = key(1);
  static final SigningKey CALLER = key(2);
  static final SigningKey STEWARD = key(3);
  static final SigningKey OTHER_STEWARD = key(4);
  static final SigningKey OUTSIDER = key(5);

  static final DidKey ORG_DID = Jcp.identity(ORG);
  static final DidKey CALLER_DID = Jcp.identity(CALLER);
  static final DidKey STEWARD_DID = Jcp.identity(STEWARD);
  static final DidKey OTHER_STEWARD_DID = Jcp.identity(OTHER_STEWARD);
  static final DidKey OUTSIDER_DID = Jcp.identity(OUTSIDER);

  /** 2027-01-15T08:00:00Z. */
  static final Instant T0 = Instant.ofEpochSecond(1_800_000_000L);

  static final Instant T_END = T0.plusSeconds(3600);
  static final Instant NOW = T0.plusSeconds(60);

  static final ContentId WEIGHTS_A = ContentId.ofBytes(bytes("weights-a"));
  static final ContentId WEIGHTS_B = ContentId.ofBytes(bytes("weights-b"));
  static final ContentId WEIGHTS_C = ContentId.ofBytes(bytes("weights-c"));

  static final long CEILING = 1_000;
  static final ServeRequest REQUEST = request("hello", CEILING);
  static final ServeRequest OTHER_REQUEST = request("goodbye", CEILING);

  private Fixture() {}

  static SigningKey key(int fill) {
    byte[] seed = new byte[32];
    Arrays.fill(seed, (byte) fill);
    return SigningKey.fromSeed(seed);
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static ServeRequest request(String prompt, long ceilingUj) {
    return ServeRequest.generation(
        ContentId.ofBytes(bytes(prompt)), 5, new ServeBounds(16, Fidelity.of(2), ceilingUj));
  }

  static PresentationNonce nonce(int fill) {
    byte[] b = new byte[16];
    Arrays.fill(b, (byte) fill);
    return PresentationNonce.of(b);
  }

  /** A gate for STEWARD with a fresh in-memory ledger. */
  static Gate gate() {
    return Gate.create(STEWARD_DID, SpendLedger.inMemory(), Revocations.none());
  }

  /** ORG grants CALLER a budget; CALLER delegates it to STEWARD. Two links. */
  static GrantChain twoLinkChain(long budgetUj, Caveat... rootCaveats) throws IssuanceException {
    GrantChain root = Jcp.issueRoot(ORG, CALLER_DID, budgetUj, T0, T_END, rootCaveats);
    return Jcp.delegate(CALLER, root, STEWARD_DID, budgetUj);
  }

  /** CALLER grants STEWARD directly: a chain of one. */
  static GrantChain directChain(long budgetUj, Caveat... caveats) throws IssuanceException {
    return Jcp.issueRoot(CALLER, STEWARD_DID, budgetUj, T0, T_END, caveats);
  }

  /** CALLER grants STEWARD directly 5 000 µJ from T0 to T_END, with {@code narrow}'s settings. */
  static GrantChain directChainWith(UnaryOperator<Grant.Builder> narrow) throws IssuanceException {
    return Jcp.issueRoot(
        CALLER,
        narrow
            .apply(
                Grant.builder()
                    .issuer(CALLER_DID)
                    .subject(STEWARD_DID)
                    .budgetUj(5_000)
                    .window(T0, T_END))
            .build());
  }

  static Presentation present(GrantChain chain, ServeRequest request, int nonceFill)
      throws IssuanceException {
    return Presentation.sign(CALLER, chain, request.id(), nonce(nonceFill));
  }

  static Authorisation decide(Gate gate, Presentation p) throws GrantRefusedException {
    return gate.decide(p, REQUEST, Optional.of(WEIGHTS_A), NOW);
  }
}
