package org.meshjava.cli;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.InstantSource;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.engine.ReferenceEngine;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.Journal;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.receipt.ChainHead;
import org.meshjava.steward.Steward;

/** What the tests of a steward on the PostgreSQL journal build their stewards and serves from. */
final class PostgresServes {
  private PostgresServes() {}

  /**
   * A steward on {@code journal} with the reference engine, snapshotting only when told; {@code
   * fresh} starts its receipt chain at 0 (its journal records no receipt yet).
   */
  static Steward steward(
      SigningKey key,
      InstantSource clock,
      Journal journal,
      @Nullable SnapshotStore snapshots,
      boolean fresh) {
    Steward.Builder b =
        Steward.builder(key)
            .meter(new EstimatorMeter())
            .clock(clock)
            .journal(journal)
            .snapshotEvery(0)
            .backend(ReferenceEngine.builder().name("ref").build());
    if (snapshots != null) {
      b.snapshots(snapshots);
    }
    if (fresh) {
      b.chainHead(ChainHead.GENESIS);
    }
    return b.build();
  }

  static ServeRequest request(String prompt) {
    byte[] b = prompt.getBytes(StandardCharsets.UTF_8);
    return ServeRequest.generation(
        ContentId.ofBytes(b), b.length, new ServeBounds(4, Fidelity.F1, 100_000));
  }

  static TokenSequence payload(ServeRequest req) {
    return TokenSequence.of(new int[(int) req.promptTokens()]);
  }

  /** A grant of 10 J from {@code caller} to {@code steward}, from a minute before {@code t}. */
  static GrantChain grant(SigningKey caller, SigningKey steward, Instant t, long seconds)
      throws Exception {
    return Jcp.issueRoot(
        caller, Jcp.identity(steward), 10_000_000, t.minusSeconds(60), t.plusSeconds(seconds));
  }
}
