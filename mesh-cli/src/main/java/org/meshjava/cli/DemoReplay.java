package org.meshjava.cli;

import java.util.Optional;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.receipt.MeshReceipt;
import org.meshjava.steward.ReplayInputs;
import org.meshjava.steward.ReplayVerdict;
import org.meshjava.steward.Replayer;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * The demo's replay of one receipt (§6.4): re-execute the serve with {@link Replayer} on the
 * backend the receipt names, with the steward's opening and the served output disclosed, and print
 * the verdict.
 */
final class DemoReplay {
  private DemoReplay() {}

  static String replay(
      Steward steward, ServeResult served, ServeRequest request, TokenSequence payload) {
    MeshReceipt receipt = served.receipt();
    Optional<ServingEngine> engine =
        steward.backends().stream().filter(b -> b.name().equals(receipt.backend())).findFirst();
    if (engine.isEmpty()) {
      return "NotReplayable (backend " + receipt.backend() + " is not registered here)";
    }
    ReplayVerdict verdict;
    try {
      verdict =
          Replayer.replay(
              new ReplayInputs(receipt, request, payload, steward.opening(receipt.requestId()))
                  .withDisclosure(steward.disclose(served, payload)),
              engine.get());
    } catch (org.meshjava.receipt.ReceiptException e) {
      return "NotReplayable (the output could not be disclosed: " + e.getMessage() + ")";
    }
    return switch (verdict) {
      case ReplayVerdict.Verified v ->
          "Verified (the re-run on "
              + receipt.backend()
              + " opens output_commitment "
              + receipt.outputCommitment().orElseThrow()
              + ")";
      case ReplayVerdict.Diverged d -> "Diverged at token " + d.firstDifference();
      case ReplayVerdict.NotReplayable n ->
          "NotReplayable (" + n.reason() + ": " + n.detail() + ")";
    };
  }
}
