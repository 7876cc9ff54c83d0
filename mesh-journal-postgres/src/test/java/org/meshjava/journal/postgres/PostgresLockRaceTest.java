package org.meshjava.journal.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.JournalException;

/**
 * Two stewards starting together on one journal, 30 times over (SPEC.md 60.7, step 2): each time
 * exactly one opens and the other is refused LOCKED, only the one that opened raises the epoch, and
 * every record the winners wrote is there, in one chain, at the end.
 */
class PostgresLockRaceTest {
  @BeforeAll
  static void startServer() {
    PostgresJournalTest.startServer();
  }

  @Test
  void twoStewardsRacingForTheLock_oneOpensEachRound_theOtherIsRefusedLocked() throws Exception {
    String name = PostgresJournalTest.newName();
    int rounds = 30;
    for (int round = 0; round < rounds; round++) {
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<Object>> racers = new ArrayList<>();
      for (int r = 0; r < 2; r++) {
        racers.add(
            CompletableFuture.supplyAsync(
                () -> {
                  try {
                    go.await();
                    return PostgresJournal.open(PostgresJournalTest.location(), name);
                  } catch (JournalException e) {
                    return e;
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return e;
                  }
                }));
      }
      go.countDown();
      List<PostgresJournal> opened = new ArrayList<>();
      List<JournalException> refused = new ArrayList<>();
      for (CompletableFuture<Object> f : racers) {
        Object o = f.get();
        if (o instanceof PostgresJournal j) {
          opened.add(j);
        } else {
          refused.add((JournalException) o);
        }
      }
      assertThat(opened).as("round %d", round).hasSize(1);
      assertThat(refused).hasSize(1);
      assertThat(refused.getFirst().reason()).isEqualTo(JournalException.Reason.LOCKED);
      try (PostgresJournal winner = opened.getFirst()) {
        assertThat(winner.epoch()).isEqualTo(round + 1L);
        winner.append(PostgresJournalTest.authorised(round));
      }
    }
    try (PostgresJournal last = PostgresJournal.open(PostgresJournalTest.location(), name)) {
      assertThat(last.epoch()).isEqualTo(rounds + 1L);
      // One grant chain record, then a decision per round.
      assertThat(last.position().count()).isEqualTo(rounds + 1L);
    }
  }
}
