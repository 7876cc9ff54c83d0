package org.meshjava.bench;

import java.time.InstantSource;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.energy.EstimatorMeter;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.IssuanceException;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.Journal;
import org.meshjava.steward.ServeException;
import org.meshjava.steward.ServeResult;
import org.meshjava.steward.Steward;

/**
 * Granted {@link BenchServe}s on a zero-work steward with the estimator and a fixed clock, paid
 * from a chain (org to caller to steward) whose budget cannot run out: what {@link
 * JournalBenchmark} measures, and what the restart measurements ({@link RestartBenchmark}, {@link
 * SnapshotRestartBenchmark}) journal and replay. Each serve journals three records.
 */
final class GrantedServes {
  private final SigningKey caller;
  private final GrantChain chain;

  /** Issues the chain that grants a fresh caller's serves on the steward {@code steward}. */
  GrantedServes(DidKey steward) throws IssuanceException {
    SigningKey org = SigningKey.generate();
    caller = SigningKey.generate();
    GrantChain root =
        Jcp.issueRoot(
            org,
            Jcp.identity(caller),
            Long.MAX_VALUE / 4,
            JournalBenchmark.NOW.minusSeconds(60),
            JournalBenchmark.NOW.plusSeconds(86_400));
    chain = Jcp.delegate(caller, root, steward, Long.MAX_VALUE / 4);
  }

  /** The caller presents the grant for the serve of {@code text} and {@code s} serves it. */
  ServeResult serve(Steward s, String text) throws IssuanceException, ServeException {
    BenchServe serve = BenchServe.of(text);
    return s.serve(serve.request(), serve.prompt(), Jcp.present(caller, chain, serve.request()));
  }

  /** {@code b} configured as the steward these serves run on, over {@code journal}. */
  static Steward.Builder zeroWork(Steward.Builder b, Journal journal) {
    return b.meter(new EstimatorMeter())
        .clock(InstantSource.fixed(JournalBenchmark.NOW))
        .journal(journal)
        .backend(new ServeOverheadBenchmark.ZeroWorkEngine());
  }
}
