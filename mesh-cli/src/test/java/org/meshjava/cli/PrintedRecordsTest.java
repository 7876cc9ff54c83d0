package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;

/**
 * What {@code mesh journal inspect} keeps across the runs of its read ({@link PrintedRecords}): a
 * rerun prints only the records past those printed, and a journal that reads otherwise than what
 * was printed, or shorter, is refused rather than printed as if it were one journal.
 */
class PrintedRecordsTest {
  private static JournalRecord record(int seq) {
    return new JournalRecord(
        seq,
        seq == 0 ? Optional.empty() : Optional.of(ContentId.ofBytes(new byte[] {(byte) seq})),
        new JournalEntry.Sealed(seq, ContentId.ofBytes(new byte[] {1})));
  }

  private static byte[] line(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void aRerun_printsOnlyTheRecordsPastThosePrinted() throws Exception {
    StringWriter out = new StringWriter();
    PrintedRecords printed = new PrintedRecords(new PrintWriter(out, true));
    printed.print(record(0), line("a"), "#0");
    printed.print(record(1), line("b"), "#1");
    // The run failed here; the next reads from record 0 again, and on.
    printed.print(record(0), line("a"), "#0");
    printed.print(record(1), line("b"), "#1");
    printed.print(record(2), line("c"), "#2");
    printed.requireRead(3);

    assertThat(out.toString().lines()).containsExactly("#0", "#1", "#2");
  }

  @Test
  void aLastPrintedRecordThatReadsOtherwise_isRefused() throws Exception {
    PrintedRecords printed = new PrintedRecords(new PrintWriter(new StringWriter(), true));
    printed.print(record(0), line("a"), "#0");
    printed.print(record(1), line("b"), "#1");
    printed.print(record(0), line("a"), "#0");

    assertThatThrownBy(() -> printed.print(record(1), line("B"), "#1"))
        .isInstanceOfSatisfying(
            JournalException.class,
            e -> assertThat(e.reason()).isEqualTo(JournalException.Reason.CORRUPT))
        .hasMessageContaining("record 1 reads otherwise than when it was printed");
  }

  @Test
  void aRerunThatReadsFewerRecordsThanPrinted_isRefused() throws Exception {
    PrintedRecords printed = new PrintedRecords(new PrintWriter(new StringWriter(), true));
    printed.print(record(0), line("a"), "#0");
    printed.print(record(1), line("b"), "#1");
    printed.print(record(0), line("a"), "#0");

    assertThatThrownBy(() -> printed.requireRead(1))
        .isInstanceOf(JournalException.class)
        .hasMessageContaining("it holds 1 records now, 2 were printed");
  }
}
