package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.LedgerState;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.journal.FileJournal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.internal.JournalFile;

/**
 * A steward's wall clock steps backwards and forwards (NTP corrections, a migrated VM, a wrong
 * clock at boot fixed later), and grants carry times (SPEC.md §30.8, §60.3). Decisions are judged
 * at the clock's reading, recorded to the millisecond, and replayed at the recorded time: nothing
 * may assume that reading only grows, and a restart, from the whole journal or from a snapshot,
 * must reach the verdicts the live steward reached.
 */
class ClockStepTest {
  private static final Instant T = GrantFixture.NOW;

  final GrantFixture f = new GrantFixture();
  final SteppedClock clock = new SteppedClock(T);
  @TempDir Path dir;

  private Path journal() {
    return dir.resolve("steward.journal");
  }

  private Steward open() throws Exception {
    return f.steward(FileJournal.open(journal())).clock(clock).build();
  }

  private Steward open(SnapshotStore store) throws Exception {
    return f.steward(FileJournal.open(journal()))
        .clock(clock)
        .snapshots(store)
        .snapshotEvery(0)
        .checkpointEvery(2)
        .build();
  }

  /** A grant the caller issues straight to the steward (a chain of one), valid over the window. */
  private GrantChain direct(long budgetUj, Instant notBefore, Instant expiry) throws Exception {
    return Jcp.issueRoot(f.caller, f.steward, budgetUj, notBefore, expiry);
  }

  private static ServeResult serve(Steward s, GrantChain chain, Presentation p, ServeRequest req)
      throws Exception {
    return s.serve(req, GrantFixture.payload(req), p);
  }

  private ServeResult serve(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    return serve(s, chain, f.present(chain, req), req);
  }

  private void assertRefused(Steward s, GrantChain chain, String prompt, DenialLabel label)
      throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    Presentation p = f.present(chain, req);
    assertThatThrownBy(() -> serve(s, chain, p, req))
        .isInstanceOfSatisfying(
            GrantDeniedException.class, e -> assertThat(e.label()).isEqualTo(label));
  }

  private void assertNotRecorded(Steward s, GrantChain chain, String prompt) throws Exception {
    ServeRequest req = GrantFixture.request(prompt, 4, 10_000);
    Presentation p = f.present(chain, req);
    assertThatThrownBy(() -> serve(s, chain, p, req))
        .isInstanceOfSatisfying(
            ServeException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(ServeException.Reason.NOT_RECORDED);
              assertThat(e).hasMessageContaining("clock reads");
            });
  }

  /** The decision times the journal holds, in record order. */
  private List<Instant> recordedDecisionTimes() throws Exception {
    return JournalFile.read(journal()).records().stream()
        .map(r -> r.entry())
        .filter(e -> e instanceof JournalEntry.Authorised)
        .map(e -> ((JournalEntry.Authorised) e).decidedAt())
        .toList();
  }

  @Test
  void clockSteppingBack_betweenServesAndBeforeARestart_leavesTheJournalStartable()
      throws Exception {
    GrantChain chain = direct(10_000_000, T.minus(Duration.ofDays(3)), T.plus(Duration.ofDays(3)));
    long remaining;
    try (Steward s = open()) {
      serve(s, chain, "at T");
      clock.step(Duration.ofSeconds(-1));
      serve(s, chain, "a second back");
      clock.set(T.minus(Duration.ofDays(1)));
      serve(s, chain, "a day back");
      clock.set(T.plusSeconds(5));
      serve(s, chain, "forward again");
      remaining = s.spend().remainingUj(chain);
    }
    assertThat(recordedDecisionTimes())
        .as("the journal holds decision times that go back")
        .containsExactly(T, T.minusSeconds(1), T.minus(Duration.ofDays(1)), T.plusSeconds(5));
    // A restart on a clock earlier than every record, then one on a clock later than all.
    for (Instant restartAt : List.of(T.minus(Duration.ofDays(2)), T.plus(Duration.ofDays(2)))) {
      clock.set(restartAt);
      try (Steward s = open()) {
        assertThat(s.spend().remainingUj(chain)).isEqualTo(remaining);
        assertThat(s.unresolved()).isEmpty();
        serve(s, chain, "after a restart at " + restartAt);
        remaining = s.spend().remainingUj(chain);
      }
    }
    try (Steward s = open()) {
      assertThat(s.head().nextSequence()).isEqualTo(6);
      assertThat(s.spend().remainingUj(chain)).isEqualTo(remaining);
    }
  }

  @Test
  void clockAheadPastExpiry_refusesExpired_thenBack_acceptsAFreshPresentation_andReplaysIt()
      throws Exception {
    GrantChain shortLived = direct(1_000_000, T.minusSeconds(60), T.plusSeconds(10));
    long remaining;
    try (Steward s = open()) {
      serve(s, shortLived, "before the step");
      clock.set(T.plus(Duration.ofHours(1)));
      assertRefused(s, shortLived, "while the clock is ahead", DenialLabel.EXPIRED);
      clock.set(T.plusSeconds(1));
      serve(s, shortLived, "once the clock is back");
      remaining = s.spend().remainingUj(shortLived);
    }
    clock.set(T.plus(Duration.ofHours(1)));
    try (Steward s = open()) {
      // Replayed at the recorded times, not at the clock's reading: both serves stand.
      assertThat(s.spend().remainingUj(shortLived)).isEqualTo(remaining);
      assertRefused(s, shortLived, "after the restart, clock ahead", DenialLabel.EXPIRED);
    }
  }

  @Test
  void aServeDecidedWhileTheClockWasAhead_keepsGrantsItOutlivedExpired_liveAndAfterARestart()
      throws Exception {
    GrantChain longLived =
        direct(10_000_000, T.minus(Duration.ofDays(1)), T.plus(Duration.ofDays(1)));
    GrantChain shortLived = direct(1_000_000, T.minusSeconds(60), T.plusSeconds(10));
    try (Steward s = open()) {
      serve(s, shortLived, "short, at T");
      clock.set(T.plus(Duration.ofHours(1)));
      serve(s, longLived, "long, an hour ahead");
      clock.set(T);
      // The steward decided at T+1h, so it may have forgotten the short grant's nonces: it must
      // not take the clock's word that the grant is valid again (SPEC.md §30.8).
      assertRefused(s, shortLived, "short, stepped back", DenialLabel.EXPIRED);
    }
    try (Steward s = open()) {
      assertRefused(s, shortLived, "short, after the restart", DenialLabel.EXPIRED);
      serve(s, longLived, "long, after the restart");
    }
  }

  @Test
  void aRefusalWhileTheClockWasAhead_changesNoLaterVerdict_soLiveStateIsWhatARestartRebuilds()
      throws Exception {
    KeepingSnapshotStore store = new KeepingSnapshotStore();
    GrantChain longLived =
        direct(10_000_000, T.minus(Duration.ofDays(1)), T.plus(Duration.ofDays(1)));
    GrantChain shortLived = direct(1_000_000, T.minusSeconds(60), T.plusSeconds(10));
    ServeRequest req = GrantFixture.request("long, at T", 4, 10_000);
    Presentation spent = f.present(longLived, req);
    LedgerState live;
    try (Steward s = open(store)) {
      serve(s, longLived, spent, req);
      serve(s, shortLived, "short, at T");
      clock.set(T.plus(Duration.ofHours(1)));
      assertThatThrownBy(() -> serve(s, longLived, spent, req))
          .isInstanceOfSatisfying(
              GrantDeniedException.class,
              e -> assertThat(e.label()).isEqualTo(DenialLabel.PRESENTATION_SPENT));
      s.snapshot();
      clock.set(T.plusSeconds(1));
      // The refusal journalled nothing, so no restart can know of that hour: the live steward
      // must not let it change a later verdict either.
      serve(s, shortLived, "short, the clock back");
      live = s.spend().ledgerState();
    }
    try (Steward s = open(store)) {
      assertThat(s.spend().ledgerState()).as("restarted from the snapshot").isEqualTo(live);
    }
    try (Steward s = open()) {
      assertThat(s.spend().ledgerState()).as("restarted by a full replay").isEqualTo(live);
    }
  }

  @Test
  void windowBoundaries_atNanosecondClocks_decideLiveAsTheyReplayAtTheRecordedMillisecond()
      throws Exception {
    Instant from = T.plusSeconds(100);
    Instant until = T.plusSeconds(110);
    GrantChain chain = direct(10_000_000, from, until);
    long remaining;
    try (Steward s = open()) {
      clock.set(from.minusNanos(1));
      assertRefused(s, chain, "a nanosecond early", DenialLabel.NOT_YET_VALID);
      clock.set(from);
      serve(s, chain, "exactly at not_before");
      clock.set(until.minusNanos(1));
      serve(s, chain, "a nanosecond before expiry");
      clock.set(until);
      assertRefused(s, chain, "exactly at expiry", DenialLabel.EXPIRED);
      remaining = s.spend().remainingUj(chain);
    }
    assertThat(recordedDecisionTimes()).containsExactly(from, until.minusMillis(1));
    clock.set(T);
    try (Steward s = open()) {
      assertThat(s.spend().remainingUj(chain)).isEqualTo(remaining);
    }
  }

  @Test
  void aRevocationIsJudgedAtTheDecisionTime_soAClockSteppedBackBeforeItServesAgain()
      throws Exception {
    GrantChain chain = direct(10_000_000, T.minus(Duration.ofDays(1)), T.plus(Duration.ofDays(1)));
    Instant revokedFrom = T.plus(Duration.ofHours(1));
    try (Steward s = open()) {
      clock.set(T.plus(Duration.ofHours(2)));
      assertThat(s.revoke(Revocation.sign(f.caller, chain, revokedFrom))).isTrue();
      assertRefused(s, chain, "after the revocation time", DenialLabel.REVOKED);
      clock.set(revokedFrom.minusNanos(1));
      // The issuer revoked from a time on, not from when the steward heard of it (SPEC.md §30.11).
      serve(s, chain, "just before the revocation time");
      clock.set(revokedFrom);
      assertRefused(s, chain, "at the revocation time", DenialLabel.REVOKED);
    }
    clock.set(T.plus(Duration.ofDays(1)));
    try (Steward s = open()) {
      assertThat(s.head().nextSequence()).isEqualTo(1);
    }
  }

  @Test
  void grantsAtTheExtremesOfTime_serveAndReplay() throws Exception {
    Instant lastSecond = Instant.parse("+1000000000-12-31T23:59:59Z");
    GrantChain forever = direct(10_000_000, Instant.EPOCH, lastSecond);
    try (Steward s = open()) {
      clock.set(Instant.EPOCH);
      serve(s, forever, "at the epoch");
      clock.set(Instant.parse("9999-12-31T23:59:59.999999999Z"));
      serve(s, forever, "in year 9999");
      clock.set(Instant.EPOCH.minusMillis(1));
      assertNotRecorded(s, forever, "before the epoch");
    }
    assertThat(recordedDecisionTimes())
        .containsExactly(Instant.EPOCH, Instant.parse("9999-12-31T23:59:59.999Z"));
    try (Steward s = open()) {
      assertThat(s.head().nextSequence()).isEqualTo(2);
    }
  }

  @Test
  void aClockBeyondWhatTheJournalCanRecord_refusesTheServe_reservingNothing_andTheJournalRestarts()
      throws Exception {
    GrantChain forever =
        direct(10_000_000, Instant.EPOCH, Instant.parse("+1000000000-12-31T23:59:59Z"));
    long remaining;
    try (Steward s = open()) {
      // Valid for the grant, but past 2^63 − 1 ms: decided_at_ms cannot carry it. Before the fix
      // this threw ArithmeticException from the journal's encoder, after the gate had reserved the
      // ceiling, and the Chain record lost with it left a journal no restart could open.
      for (Instant wrong : List.of(Instant.parse("+300000000-01-01T00:00:00Z"), Instant.MAX)) {
        clock.set(wrong);
        assertNotRecorded(s, forever, "at " + wrong);
      }
      assertThat(s.spend().remainingUj(forever)).as("nothing reserved").isEqualTo(10_000_000);
      clock.set(T);
      serve(s, forever, "once the clock is right");
      remaining = s.spend().remainingUj(forever);
    }
    try (Steward s = open()) {
      assertThat(s.spend().remainingUj(forever)).isEqualTo(remaining);
      assertThat(s.head().nextSequence()).isEqualTo(1);
    }
  }
}
