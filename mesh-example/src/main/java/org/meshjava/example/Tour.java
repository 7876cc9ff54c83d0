package org.meshjava.example;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.meshjava.core.CostProfile;
import org.meshjava.core.DecisionPrompt;
import org.meshjava.core.DecisionQuestion;
import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.Opening;
import org.meshjava.receipt.ReceiptChain;
import org.meshjava.receipt.SealedReceipt;
import org.meshjava.steward.ReplayInputs;
import org.meshjava.steward.ReplayVerdict;
import org.meshjava.steward.Replayer;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * The README's "everything else a steward does, in brief", verbatim between the two markers, so
 * that the build compiles it and its test runs it: a steward with a key and a file journal in the
 * working directory, a generation, a granted one, a typed decision, the chain and a replay.
 */
public final class Tour {
  private Tour() {}

  /** Runs the tour in the working directory (its first run there: the journal must be new). */
  public static void main(String[] args) throws Exception {
    byte[] seed = new byte[32]; // in an application: read from a key file you keep
    SigningKey callerKey = Jcp.newKey(); // the caller's own key, which it never hands over
    // README:begin
    // A key you keep gives the steward an identity that outlives the process.
    SigningKey key = SigningKey.fromSeed(seed);
    ReferenceEngine small =
        ReferenceEngine.builder()
            .name("small")
            .fidelity(Fidelity.F1)
            .costProfile(CostProfile.perToken(40))
            .build();
    // Closed when the block ends, even by a step that throws: that releases the journal's lock.
    try (Steward steward =
        Steward.builder(key)
            .backend(small)
            .backend(
                ReferenceEngine.builder()
                    .name("large")
                    .fidelity(Fidelity.F4)
                    .costProfile(CostProfile.perToken(900))
                    .build())
            // Grant spend survives restarts.
            .journal(FileJournal.open(Path.of("steward.journal")))
            // This key's first start only; later starts read where the chain stands from the
            // journal, and refuse a chain head that contradicts it.
            .chainHead(ChainHead.GENESIS)
            // Meter: live RAPL/NVML/IOReport counters if this machine has them, else Estimator.
            .build()) {
      // A key needs a durable journal to honour grants, and says where its receipt chain starts
      // when the journal records none (SPEC.md section 60.6); Steward.ephemeral() needs neither.

      PromptText prompt = PromptText.of("What did this answer cost?");
      ServeRequest request =
          ServeRequest.generation(prompt, new ServeBounds(64, Fidelity.F1, 50_000 /* µJ */));

      ServeResult result = steward.serve(request, prompt); // routed once; the engine tokenizes it
      result.route().candidates(); // every backend weighed, with reasons
      result.envelope().bytes(); // the sealed JCR-1 receipt
      Jcr1.open(result.envelope()); // anyone can verify it with the kid's key

      // On a grant: the caller signs a presentation for this exact request (mesh/1 §2.1).
      GrantChain grant =
          Jcp.issueRoot(
              callerKey,
              steward.identity(),
              5_000_000,
              Instant.now(),
              Instant.now().plusSeconds(3600));
      ServeResult granted = steward.serve(request, prompt, Jcp.present(callerKey, grant, request));

      // A typed decision (§3.6): the answers come back beside the receipt, never inside it.
      DecisionPrompt decision =
          new DecisionPrompt(
              List.of(
                  new DecisionQuestion.Proposition("Is this invoice a duplicate?"),
                  new DecisionQuestion.Choice(
                      "Which team owns it?", List.of("finance", "ops", "legal"))),
              PromptText.of("Invoice 4411, EUR 1,200, same as 4410"));
      ServeResult d = steward.serve(ServeRequest.decision(decision, Fidelity.F1, 50_000), decision);
      d.answers(); // one probability per option, per question, in the order asked

      // Already tokenized? Hand over the payload instead; it reaches whichever engine is routed.
      // steward.serve(request, TokenSequence.of(...));

      // The envelopes, in order from the key's first, verify as one chain (§6.3).
      List<SealedReceipt> chain =
          ReceiptChain.verifyFromGenesis(
              List.of(result.envelope(), granted.envelope(), d.envelope()));

      // Replay a deterministic generation against its receipt, on the same engine (§6.4).
      Opening opening = steward.opening(request.id());
      var inputs = new ReplayInputs(result.receipt(), request, result.payload(), opening);
      ReplayVerdict verdict =
          Replayer.replay(inputs.withDisclosure(steward.disclose(result)), small);

      // Prints: chain 3, grant true, answers 2, verdict Verified[]
      System.out.printf(
          "chain %d, grant %b, answers %d, verdict %s%n",
          chain.size(), granted.receipt().grant().isPresent(), d.answers().size(), verdict);
    } // A serve on the closed steward is refused before any engine runs.
    // README:end
  }
}
