package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.InstantSource;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.Gate;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Revocations;
import org.meshjava.jcp.SpendLedger;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.FileSnapshotStore;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.internal.JournalFile;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.steward.Steward;

/**
 * {@code mesh journal verify} accepts a snapshot written before expired chains were forgotten
 * (SPEC.md §60.8, "chains"): such a snapshot still holds every chain, and a steward starting from
 * it drops those its ledger's horizon has passed. Verify compared it byte for byte with a replay
 * that had dropped them, and refused a snapshot every start accepts.
 */
class JournalVerifyEarlierSnapshotTest {
  @TempDir Path tmp;

  private final SigningKey stewardKey = SigningKey.generate();
  private final SigningKey caller = SigningKey.generate();
  private final Instant now = Instant.ofEpochSecond(Instant.now().getEpochSecond());

  @Test
  void verify_ofASnapshotThatStillHoldsAnExpiredChain_matchesTheReplay() throws Exception {
    Path journal = tmp.resolve("steward.journal");
    AtomicReference<Instant> clock = new AtomicReference<>(now);
    InstantSource source = clock::get;
    GrantChain brief = grantUntil(now.plusSeconds(10));
    GrantChain hour = grantUntil(now.plusSeconds(3600));
    try (Steward s =
        ReferenceSteward.builder(stewardKey, FileJournal.open(journal)).clock(source).build()) {
      serve(s, brief, "before the brief grant expires");
      clock.set(now.plusSeconds(20));
      serve(s, hour, "after it expired");
    }
    // The snapshot an earlier build wrote at the journal's end: the replay's state, with every
    // chain recorded (the brief one, which this build's replay forgot at the second decision).
    ReplayState replay =
        ReplayState.fresh(
            Gate.create(Jcp.identity(stewardKey), SpendLedger.inMemory(), Revocations.none()));
    replay.applyAll(JournalFile.read(journal).records());
    SnapshotState current = replay.capture(-1);
    assertThat(current.chains()).containsExactly(hour);
    SnapshotState earlier =
        new SnapshotState(
            current.position(),
            current.ledger(),
            current.revocations(),
            current.suspension(),
            current.lastSealed(),
            current.receipts(),
            current.open(),
            current.settled(),
            current.checkpoint(),
            List.of(brief, hour),
            current.authorisations(),
            current.revocationsReplayed());
    FileSnapshotStore.beside(journal).save(Snapshot.sign(stewardKey, earlier));
    // Archived, with the segments kept: verify then replays the whole history and compares it
    // with the snapshot where it stands.
    Run archive = mesh("journal", "archive", journal.toString());
    assertThat(archive.code()).as(archive.err()).isZero();

    Run verify = mesh("journal", "verify", journal.toString());

    assertThat(verify.code()).as(verify.err()).isZero();
    assertThat(verify.out()).contains("matches the replay");
  }

  private GrantChain grantUntil(Instant expiry) throws Exception {
    return Jcp.issueRoot(caller, Jcp.identity(stewardKey), 1_000_000, now.minusSeconds(60), expiry);
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
