package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.meshjava.journal.internal.RecordCodec;

/**
 * Opening reads the {@code seq} of a journal's first and last lines without a JSON mapper; it must
 * read exactly what the record decoder reads, and hand anything unusual to it.
 */
class FileJournalSeqTest {
  private static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void seqOf_readsWhatTheDecoderReads() throws Exception {
    for (String line :
        List.of(
            "{\"seq\":0,\"entry\":{}}",
            "{\"seq\":7,\"prev\":\"ab\"}",
            "{\"seq\":123456789012345678,\"x\":1}",
            "{\"seq\":1234567890123456789,\"x\":1}", // 19 digits: the decoder reads it
            "{\"seq\": 5,\"x\":1}",
            "{\"x\":1,\"seq\":9}",
            "{\"seq\":42}")) {
      assertThat(FileJournal.seqOf(b(line), "t"))
          .as(line)
          .isEqualTo(RecordCodec.seqOf(b(line), "t"));
    }
  }

  @Test
  void seqOf_refusesWhatTheDecoderRefuses() {
    for (String line :
        List.of(
            "{\"seq\":01,\"x\":1}",
            "{\"seq\":-1,\"x\":1}",
            "{\"seq\":,\"x\":1}",
            "{\"seq\":",
            "{\"seq\":12",
            "{\"seq\":12x,\"x\":1}",
            "{\"seq\":a,\"x\":1}",
            "{\"seq\":9999999999999999999,\"x\":1}")) {
      assertThatThrownBy(() -> FileJournal.seqOf(b(line), "t"))
          .as(line)
          .isInstanceOf(JournalException.class);
    }
  }

  /**
   * Regression: a journal whose first or last line is not JSON (NUL bytes, binary) was "a line of
   * FILE is not JSON: … at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION`
   * disabled); line: 1, column: 2]": which line was not said, and the location named a source it
   * hid and a line that is always 1. The line is named by the byte it starts at, the column kept. A
   * first line that does not begin as a record does is no journal at all, and is said to be none.
   */
  @Test
  void firstSequence_ofALineThatIsNotJson_namesItsByte_withoutJacksonsLocation(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    java.nio.file.Path nul = java.nio.file.Files.write(dir.resolve("nul.journal"), b("\0\0\n"));
    assertThatThrownBy(() -> FileJournal.firstSequence(nul))
        .isInstanceOf(JournalException.class)
        .hasMessageStartingWith(nul + " is not a mesh journal: its first line does not begin as")
        .hasMessageNotContaining("REDACTED");
    java.nio.file.Path last =
        java.nio.file.Files.write(dir.resolve("last.journal"), b("{\"seq\":0}\ngarbage\n"));
    assertThatThrownBy(() -> FileJournal.firstSequence(last))
        .isInstanceOf(JournalException.class)
        .hasMessageStartingWith("the line at byte 10 of " + last + " is not JSON: ")
        .hasMessageNotContaining("REDACTED");
  }
}
