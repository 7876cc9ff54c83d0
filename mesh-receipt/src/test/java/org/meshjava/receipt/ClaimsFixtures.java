package org.meshjava.receipt;

import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/** Receipts for the claims tests: a generation with a commitment, and a decision. */
final class ClaimsFixtures {
  static final SigningKey KEY = SigningKey.fromSeed(new byte[32]);
  static final ContentId REQUEST = ContentId.ofBytes(new byte[] {1});
  static final ContentId OTHER_REQUEST = ContentId.ofBytes(new byte[] {2});
  static final TokenSequence PROMPT = TokenSequence.of(10, 20, 30);
  static final TokenSequence TOKENS = TokenSequence.of(7, 8, 9, 256);

  private ClaimsFixtures() {}

  static MeshReceipt.Builder base(ContentId request) {
    return MeshReceipt.builder()
        .requestId(request)
        .backend("b")
        .recipe("r")
        .route("only")
        .counters(new OutcomeCounters(3, 4, 4, 0, 0, 0))
        .fidelityFloor(Fidelity.F1)
        .fidelityMet(true)
        .energy(Energy.estimated(1000))
        .chain(0, Optional.empty())
        .nonce(Nonce.of(new byte[16]))
        .steward(DidKey.of(KEY.verificationKey()));
  }

  static MeshReceipt generation(ContentId request, Opening opening) {
    return base(request)
        .outputCommitment(
            Optional.of(
                OutputCommitment.commit(
                    opening, request, OutputCommitment.payloadDigest(PROMPT), TOKENS)))
        .build();
  }

  static MeshReceipt decision(ContentId request) {
    return base(request)
        .counters(new OutcomeCounters(13, 0, 0, 0, 0, 0))
        .decision(Optional.of(new DecisionShape(3, 7, 11)))
        .build();
  }
}
