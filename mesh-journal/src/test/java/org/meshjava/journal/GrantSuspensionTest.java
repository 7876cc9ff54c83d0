package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.meshjava.journal.internal.GrantSuspension;

/**
 * The operator's side of a suspension of grants (§2.2): whether one is in force, and lifting it.
 */
class GrantSuspensionTest {

  @Test
  void theLastSuspensionNotLifted_isInForce() {
    JournalHistory h = new JournalHistory();
    assertThat(GrantSuspension.inForce(h.records())).isEmpty();
    h.suspend(0, 1);
    h.resume();
    assertThat(GrantSuspension.inForce(h.records())).isEmpty();
    long s = h.suspend(0, 2);
    h.sealUngranted(0);
    var inForce = GrantSuspension.inForce(h.records());
    assertThat(inForce).isPresent();
    assertThat(inForce.get().record()).isEqualTo(s);
    assertThat(inForce.get().evidence())
        .isEqualTo(
            new Suspension.Evidence.ShownReceipt(
                0, ((JournalEntry.Suspended) h.records().get((int) s).entry()).envelope().id()));
  }

  @Test
  void aSuspensionOnACheckpoint_isInForce_andLifted() throws Exception {
    JournalHistory h = new JournalHistory();
    h.sealUngranted(0);
    long s = h.suspendOnCheckpoint(1);
    var inForce = GrantSuspension.inForce(h.records());
    assertThat(inForce)
        .contains(
            new Suspension(
                s,
                new Suspension.Evidence.ShownCheckpoint(
                    ((JournalEntry.SuspendedByCheckpoint) h.records().get((int) s).entry())
                        .checkpoint())));
    InMemoryJournal target = new InMemoryJournal();
    assertThat(GrantSuspension.lift(withRecovered(target, h), "restored")).isPresent();
  }

  @Test
  void lifting_appendsOneResumedRecord_onlyWhenASuspensionIsInForce() throws Exception {
    JournalHistory none = new JournalHistory();
    none.sealUngranted(0);
    InMemoryJournal j = none.journal;
    assertThat(GrantSuspension.lift(recovered(j), "nothing to lift")).isEmpty();

    JournalHistory h = new JournalHistory();
    h.suspend(0, 1);
    InMemoryJournal target = new InMemoryJournal();
    var lifted = GrantSuspension.lift(withRecovered(target, h), "restored from backup");
    assertThat(lifted).isPresent();
    assertThat(lifted.get().entry()).isEqualTo(new JournalEntry.Resumed("restored from backup"));
    assertThat(target.records()).hasSize(1);
  }

  /** {@code j} as a journal whose recovered records are its own. */
  static Journal recovered(InMemoryJournal j) {
    return withRecovered(j, null);
  }

  static Journal withRecovered(
      InMemoryJournal appendTo, @org.jspecify.annotations.Nullable JournalHistory h) {
    return new Journal() {
      @Override
      public java.util.List<JournalRecord> recovered() {
        return h == null ? appendTo.records() : h.records();
      }

      @Override
      public Pending enqueue(JournalEntry entry) throws JournalException {
        if (h == null) {
          throw new AssertionError("nothing may be written");
        }
        return appendTo.enqueue(entry);
      }

      @Override
      public boolean durable() {
        return false;
      }

      @Override
      public String describe() {
        return "test";
      }

      @Override
      public void close() {}
    };
  }
}
