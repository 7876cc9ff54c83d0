package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How {@link EventLines} splits a streamed reply, and where it stops reading one. */
class EventLinesTest {
  private static List<String> all(EventLines lines) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line = lines.next(); line != null; line = lines.next()) {
      out.add(line);
    }
    return out;
  }

  private static EventLines of(String text, int maxLine, long maxBytes) {
    return new EventLines(
        new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), maxLine, maxBytes);
  }

  @Test
  void linesEndAtLfCrlfOrALoneCr_andALastLineNeedsNoEnding() throws Exception {
    assertThat(all(of("data: a\n\ndata: b\r\ndata: c\rdata: d", 100, 1_000)))
        .containsExactly("data: a", "", "data: b", "data: c", "data: d");
    assertThat(all(of("", 100, 1_000))).isEmpty();
    assertThat(all(of("\r\n\r\n", 100, 1_000))).containsExactly("", "");
  }

  /**
   * A stream may open with a byte order mark, which an event stream's decoder drops (the WHATWG
   * event-stream format), as Jackson drops one before a whole reply: it was read as part of the
   * first line, which then did not start with "data:" and was skipped, its text lost.
   */
  @Test
  void aByteOrderMarkOpeningTheStream_isNoPartOfItsFirstLine() throws Exception {
    assertThat(all(of("\uFEFFdata: a\n\uFEFFdata: b\n", 100, 1_000)))
        .containsExactly("data: a", "\uFEFFdata: b");
  }

  @Test
  void utf8IsDecoded_acrossTheReadBuffersEdge() throws Exception {
    // 8191 ASCII bytes, then a 4-byte emoji that straddles the 8192-byte buffer.
    String text = "x".repeat(8191) + "\uD83C\uDF0D é\n";
    assertThat(all(of(text, 10_000, 100_000))).containsExactly("x".repeat(8191) + "\uD83C\uDF0D é");
  }

  @Test
  void aLineOverItsBound_isRefused_andTheRestIsNotRead() throws Exception {
    CountingStream endless = new CountingStream("data: {\"x\":\"");
    EventLines lines = new EventLines(endless, 1_000, Long.MAX_VALUE);
    assertThatThrownBy(lines::next)
        .isInstanceOf(EventLines.TooLong.class)
        .hasMessageContaining("longer than 1000 bytes");
    assertThat(endless.served).isLessThan(10_000);
    // A line of exactly the bound is fine.
    assertThat(all(of("y".repeat(1_000) + "\n", 1_000, 10_000))).containsExactly("y".repeat(1_000));
  }

  @Test
  void aStreamOverItsBound_isRefused_evenInShortLines() throws Exception {
    CountingStream endless = new CountingStream(": keep-alive\n");
    EventLines lines = new EventLines(endless, 1_000, 50_000);
    assertThatThrownBy(() -> all(lines))
        .isInstanceOf(EventLines.TooLong.class)
        .hasMessageContaining("longer than 50000 bytes");
    assertThat(endless.served).isEqualTo(50_001);
    // A stream of exactly the bound is read to its end.
    assertThat(all(of("ab\n".repeat(10), 1_000, 30))).hasSize(10);
  }

  @Test
  void boundsOfOneByte_areBounds_andNoneBelowIsOne() throws Exception {
    assertThat(all(of("a\n", 1, 2))).containsExactly("a");
    assertThat(all(of("a", 1, 1))).containsExactly("a");
    assertThatThrownBy(() -> of("a", 0, 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bounds must be positive");
    assertThatThrownBy(() -> of("a", 1, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  /** Serves {@code pattern} over and over, without end, counting the bytes it served. */
  private static final class CountingStream extends InputStream {
    private final byte[] pattern;
    long served;

    CountingStream(String pattern) {
      this.pattern = pattern.getBytes(StandardCharsets.US_ASCII);
    }

    @Override
    public int read() {
      return pattern[(int) (served++ % pattern.length)];
    }
  }
}
