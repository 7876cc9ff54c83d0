package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A decorator built on {@link ForwardingJournal} is the journal it wraps except where it says. */
class ForwardingJournalTest {

  @Test
  void everyMethod_isTheWrappedJournals(@TempDir Path dir) throws Exception {
    FileJournal file = FileJournal.open(dir.resolve("j.journal"));
    Journal j = new ForwardingJournal(file) {};
    JournalRecord r = j.append(JournalHistory.authorised(0));

    assertThat(j.recovered()).isEqualTo(file.recovered());
    assertThat(j.position()).isEqualTo(file.position());
    assertThat(j.position().count()).isEqualTo(r.seq() + 1);
    assertThat(j.durable()).isTrue();
    assertThat(j.locked()).isTrue();
    assertThat(j.describe()).isEqualTo(file.describe());
    assertThat(j.refusesAppends()).isEmpty();
    List<JournalRecord> read = new ArrayList<>();
    j.read(JournalPosition.GENESIS, new HashMap<>(), read::add);
    assertThat(read).extracting(JournalRecord::seq).containsExactly(0L, 1L);

    j.close();
    assertThat(j.locked()).isFalse();
    assertThat(j.refusesAppends()).isPresent();
    assertThatThrownBy(() -> j.append(JournalHistory.authorised(1)))
        .isInstanceOf(JournalException.class);
  }

  @Test
  void append_goesThroughTheDecoratorsEnqueue() throws Exception {
    AtomicInteger enqueued = new AtomicInteger();
    Journal j =
        new ForwardingJournal(new InMemoryJournal()) {
          @Override
          public Pending enqueue(JournalEntry entry) throws JournalException {
            enqueued.incrementAndGet();
            return super.enqueue(entry);
          }
        };
    j.append(JournalHistory.authorised(0));
    assertThat(enqueued).hasValue(1);
    assertThat(j.durable()).isFalse();
    assertThat(j.locked()).isFalse();
  }
}
