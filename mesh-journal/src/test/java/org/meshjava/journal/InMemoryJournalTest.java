package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.jcp.GrantChain;

/**
 * The in-memory journal chains exactly like the file journal but promises nothing across restarts
 * (§8); and {@link Journal}'s defaults, which it uses.
 */
class InMemoryJournalTest {

  @Test
  void records_areChainedAsTheFileJournalChainsThem() throws Exception {
    InMemoryJournal j = new InMemoryJournal();
    JournalRecord first = j.append(JournalHistory.authorised(0));
    assertThat(first.seq()).isEqualTo(1);
    assertThat(j.records()).hasSize(2);
    assertThat(j.records().get(0).entry()).isEqualTo(new JournalEntry.Chain(JournalHistory.CHAIN));
    assertThat(j.lines()).hasSize(2);
    assertThat(first.prev()).contains(ContentId.ofBytes(j.lines().get(0)));
    j.lines().get(0)[0] = 'x';
    assertThat(j.lines().get(0)[0]).isEqualTo((byte) '{');
    assertThat(j.recovered()).isEmpty();
    assertThat(j.durable()).isFalse();
    assertThat(j.locked()).isFalse();
    assertThat(j.describe()).isNotBlank();
    assertThat(j.refusesAppends()).isEmpty();
    assertThatThrownBy(j::position).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void anUnretainedJournal_keepsOnlyTheChainsState() throws Exception {
    InMemoryJournal j = InMemoryJournal.unretained();
    j.append(JournalHistory.authorised(0));
    JournalRecord second = j.append(JournalHistory.authorised(1));
    assertThat(second.seq()).isEqualTo(2); // the chain was recorded once
    assertThat(j.records()).isEmpty();
    assertThat(j.lines()).isEmpty();
  }

  @Test
  void aClosedJournal_refusesAppends() {
    InMemoryJournal j = new InMemoryJournal();
    j.close();
    assertThat(j.refusesAppends()).isPresent();
    assertThatThrownBy(() -> j.append(new JournalEntry.Resumed("x")))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CLOSED));
  }

  /** A journal that recovered {@code records}, for {@link Journal#read}'s default. */
  static Journal recovering(List<JournalRecord> records) {
    return new Journal() {
      @Override
      public List<JournalRecord> recovered() {
        return records;
      }

      @Override
      public Pending enqueue(JournalEntry entry) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean durable() {
        return false;
      }

      @Override
      public String describe() {
        return "recovering";
      }

      @Override
      public void close() {}
    };
  }

  @Test
  void theDefaultRead_streamsFromAPosition_andLearnsTheChains() throws Exception {
    JournalHistory h = new JournalHistory();
    h.serve(0, 100);
    h.serve(1, 100);
    List<JournalRecord> all = h.records();
    Journal j = recovering(all);

    List<JournalRecord> got = new ArrayList<>();
    Map<ContentId, GrantChain> chains = new HashMap<>();
    j.read(JournalPosition.GENESIS, chains, got::add);
    assertThat(got).isEqualTo(all);
    assertThat(chains).containsValue(JournalHistory.CHAIN);

    got.clear();
    JournalPosition at =
        new JournalPosition(3, Optional.of(ContentId.ofBytes(h.lines().get(2))), -1);
    j.read(at, new HashMap<>(), got::add);
    assertThat(got).isEqualTo(all.subList(3, all.size()));

    got.clear();
    j.read(
        new JournalPosition(all.size(), Optional.of(ContentId.ofBytes(h.lines().getLast())), -1),
        new HashMap<>(),
        got::add);
    assertThat(got).isEmpty();

    assertThatThrownBy(
            () ->
                j.read(
                    new JournalPosition(3, Optional.of(ContentId.ofBytes(new byte[1])), -1),
                    new HashMap<>(),
                    r -> {}))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> {
              assertThat(e.reason()).isEqualTo(JournalException.Reason.POSITION_MISMATCH);
              assertThat(e.seq()).hasValue(3);
            });
    assertThatThrownBy(
            () ->
                j.read(
                    new JournalPosition(
                        all.size() + 1, Optional.of(ContentId.ofBytes(new byte[1])), -1),
                    new HashMap<>(),
                    r -> {}))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.POSITION_MISMATCH));
  }

  static Journal throwing(RuntimeException e) {
    return new Journal() {
      @Override
      public List<JournalRecord> recovered() {
        throw e;
      }

      @Override
      public Pending enqueue(JournalEntry entry) {
        throw new UnsupportedOperationException();
      }

      @Override
      public boolean durable() {
        return false;
      }

      @Override
      public String describe() {
        return "failing";
      }

      @Override
      public void close() {}
    };
  }

  @Test
  void theDefaultRead_passesOnARecoveryFailure() {
    JournalException cause = new JournalException(JournalException.Reason.CORRUPT, 4, "bad", null);
    assertThatThrownBy(
            () ->
                throwing(new IllegalStateException("wrapped", cause))
                    .read(JournalPosition.GENESIS, new HashMap<>(), r -> {}))
        .isSameAs(cause);
    IllegalStateException other = new IllegalStateException("not a journal's");
    assertThatThrownBy(
            () -> throwing(other).read(JournalPosition.GENESIS, new HashMap<>(), r -> {}))
        .isSameAs(other);
  }
}
