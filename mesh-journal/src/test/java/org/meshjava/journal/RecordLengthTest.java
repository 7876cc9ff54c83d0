package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.LineReader;
import org.meshjava.receipt.Envelope;

/**
 * A record longer than a journal reads back (SPEC.md 60.3): both journals refuse a line over {@link
 * LineReader#MAX_LINE_BYTES} when they open, and an append stored one (a suspension carrying a
 * witness's 33 MiB envelope), so the journal never opened again. An append now refuses it typed,
 * before anything moves, and the journal takes the next record and opens.
 */
class RecordLengthTest {
  @TempDir Path dir;

  /** A suspension whose envelope, in hex, alone passes the limit. */
  static JournalEntry tooLong() {
    return new JournalEntry.Suspended(0, Envelope.of(new byte[LineReader.MAX_LINE_BYTES / 2 + 1]));
  }

  @Test
  void aRecordLongerThanAJournalReadsBack_isRefusedAtAppend_andTheJournalStillOpens()
      throws Exception {
    Path p = dir.resolve("j.journal");
    try (FileJournal j = FileJournal.open(p)) {
      j.append(new JournalEntry.Resumed("before"));
      JournalException e = catchThrowableOfType(JournalException.class, () -> j.append(tooLong()));
      assertThat(e).isNotNull();
      assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
      assertThat(e.getMessage())
          .contains("a Suspended record would be a line of")
          .contains("longer than the " + LineReader.MAX_LINE_BYTES + " bytes")
          .contains("not written");
      assertThat(j.refusesAppends()).isEmpty();
      assertThat(j.append(new JournalEntry.Resumed("after")).seq()).isEqualTo(1);
    }
    try (FileJournal j = FileJournal.open(p)) {
      assertThat(j.recovered()).hasSize(2);
    }
  }

  @Test
  void anInMemoryJournal_refusesItAsTheDurableOnesDo() {
    InMemoryJournal j = new InMemoryJournal();
    JournalException e = catchThrowableOfType(JournalException.class, () -> j.append(tooLong()));
    assertThat(e).isNotNull();
    assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT);
  }
}
