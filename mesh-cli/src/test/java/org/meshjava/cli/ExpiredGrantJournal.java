package org.meshjava.cli;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.atomic.AtomicReference;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.journal.FileJournal;
import org.meshjava.steward.Steward;

/**
 * A journal of two granted serves, the second decided after the first one's grant expired, so the
 * replay's horizon passes that grant (SPEC 30 §8): its spend and its chain are forgotten. Test
 * support only.
 */
final class ExpiredGrantJournal {
  static final long BUDGET_UJ = 1_000_000;

  final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());

  /** The grant served first, expired by the second serve. */
  final GrantChain brief;

  /** The grant served second, valid for an hour. */
  final GrantChain hour;

  private ExpiredGrantJournal() throws Exception {
    brief = issue(now.plusSeconds(10));
    hour = issue(now.plusSeconds(3600));
  }

  /** Such a journal, written at {@code journal} through a steward under {@link #stewardKey}. */
  static ExpiredGrantJournal writtenAt(Path journal) throws Exception {
    ExpiredGrantJournal f = new ExpiredGrantJournal();
    f.write(journal);
    return f;
  }

  private void write(Path journal) throws Exception {
    AtomicReference<Instant> clock = new AtomicReference<>(now);
    InstantSource source = clock::get;
    try (Steward s =
        ReferenceSteward.builder(stewardKey, FileJournal.open(journal)).clock(source).build()) {
      serve(s, brief, "before the brief grant expires");
      clock.set(now.plusSeconds(20));
      serve(s, hour, "after it expired");
    }
  }

  private GrantChain issue(Instant expiry) throws Exception {
    return Jcp.issueRoot(caller, Jcp.identity(stewardKey), BUDGET_UJ, now.minusSeconds(60), expiry);
  }

  private void serve(Steward s, GrantChain chain, String prompt) throws Exception {
    byte[] b = prompt.getBytes(StandardCharsets.UTF_8);
    ServeRequest req =
        ServeRequest.generation(
            ContentId.ofBytes(b), b.length, new ServeBounds(4, Fidelity.F1, 100_000));
    s.serve(
        req, TokenSequence.of(new int[(int) req.promptTokens()]), Jcp.present(caller, chain, req));
  }
}
