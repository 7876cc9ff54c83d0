package org.meshjava.example;

import org.meshjava.core.Fidelity;
import org.meshjava.core.PromptText;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.openai.ReceiptJson;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/** Serves one prompt on a steward with one engine and prints the sealed receipt as JSON. */
public final class Main {
  private Main() {}

  /** Serves {@code args[0]} (or a default prompt) and prints its receipt. */
  public static void main(String[] args) throws Exception {
    try (Steward steward =
        Steward.ephemeral() // an identity that ends with this process; grants need no journal
            .backend(ReferenceEngine.builder().name("reference").build())
            .build()) {
      PromptText prompt = PromptText.of(args.length > 0 ? args[0] : "What did this answer cost?");
      ServeResult result =
          steward.serve(
              ServeRequest.generation(prompt, new ServeBounds(32, Fidelity.F1, 100_000)), prompt);
      System.out.println(ReceiptJson.of(result.receipt()).toPrettyString());
    }
  }
}
