package org.meshjava.cli;

import java.util.Optional;
import org.meshjava.core.ContentId;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.receipt.OutputCommitment;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * The demo's replay of one receipt (§6.4): re-execute the serve on the backend the receipt names
 * and check that the re-run opens the receipt's output commitment.
 *
 * <p>HOOK: this is a stand-in until the typed {@code Replayer}/{@code ReplayVerdict} API is merged
 * into main; the demo should then call it instead and print its verdict. It handles only the
 * demo's case (a deterministic reference backend, the request and payload at hand) and prints a
 * verdict in the same words: Verified, Diverged, NotReplayable.
 */
final class DemoReplay {
  private DemoReplay() {}

  static String replay(Steward steward, ServeResult served, ServeRequest request, TokenSequence payload) {
    MeshReceipt receipt = served.receipt();
    Optional<ServingEngine> engine =
        steward.backends().stream().filter(b -> b.name().equals(receipt.backend())).findFirst();
    if (engine.isEmpty() || !engine.get().recipe().name().equals(receipt.recipe())) {
      return "NotReplayable (backend " + receipt.backend() + " with that recipe is not here)";
    }
    if (!engine.get().deterministic()) {
      return "NotReplayable (backend " + receipt.backend() + " samples)";
    }
    if (!request.id().equals(receipt.requestId()) || receipt.outputCommitment().isEmpty()) {
      return "NotReplayable (not this receipt's request, or no output commitment)";
    }
    EngineResult again;
    try {
      again = engine.get().serve(request, payload);
    } catch (EngineException e) {
      return "NotReplayable (the re-run failed: " + e.getMessage() + ")";
    }
    ContentId requestId = receipt.requestId();
    ContentId reopened =
        OutputCommitment.commit(
            steward.opening(requestId), requestId, OutputCommitment.payloadDigest(payload), again.tokens());
    if (reopened.equals(receipt.outputCommitment().get())) {
      return "Verified (the re-run on " + receipt.backend() + " opens output_commitment "
          + reopened + ")";
    }
    TokenSequence served1 = served.tokens();
    int i = 0;
    while (i < Math.min(served1.size(), again.tokens().size())
        && served1.get(i) == again.tokens().get(i)) {
      i++;
    }
    return "Diverged at token " + i;
  }
}
