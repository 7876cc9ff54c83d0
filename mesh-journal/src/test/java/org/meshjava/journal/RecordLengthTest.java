package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.journal.internal.LineReader;
import org.meshjava.journal.internal.RecordChain;
import org.meshjava.journal.internal.RecordCodec;
import org.meshjava.receipt.Envelope;

/**
 * A record that does not read back (SPEC.md 60.3): both journals refuse a line over {@link
 * LineReader#MAX_LINE_BYTES} when they open, and the decoder a string over {@link
 * RecordCodec#MAX_STRING} characters, and an append stored either (a suspension carrying a
 * witness's 10 MB envelope, its hex 20 million characters), so the journal never opened again. An
 * append now refuses a line over {@link RecordChain#MAX_LINE} typed, before anything moves, and the
 * journal takes the next record and opens.
 */
class RecordLengthTest {
  @TempDir Path dir;

  /** A suspension whose envelope, in hex, is a string longer than the decoder reads. */
  static JournalEntry tooLong() {
    return new JournalEntry.Suspended(0, Envelope.of(new byte[RecordCodec.MAX_STRING / 2 + 1]));
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
          .contains("longer than the " + RecordChain.MAX_LINE + " bytes a record may be")
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
