package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * A journal command's refusal names the journal once: where the journal's own message already names
 * it (a live file older than its segments, records archived without their segment), the command
 * does not put the name in front again; where the message names only a file under it (a segment),
 * the journal is still put in front.
 */
class JournalRefusalNamedOnceTest {
  @TempDir Path dir;

  private History archivedTwice() throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later").archive().serve(1, "last");
    return h;
  }

  private static List<Path> segments(History h) throws Exception {
    try (Stream<Path> s = Files.list(h.segments())) {
      return s.sorted().toList();
    }
  }

  /**
   * How often {@code journal} appears in {@code text} as a whole name, not a longer one's start.
   */
  private static int named(String text, Path journal) {
    Matcher m = Pattern.compile(Pattern.quote(journal.toString()) + "(?![./\\w-])").matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }

  /**
   * Regression: "mesh journal verify: J: journal J is older than the records archived from it" and
   * "mesh journal inspect: J: records 0 to 9 of journal J were archived".
   */
  @Test
  void aRefusalThatNamesTheJournal_isNotPrefixedWithItAgain() throws Exception {
    History h = archivedTwice();
    Files.delete(segments(h).getFirst());
    h.removeSnapshots();
    Run inspect = mesh("journal", "inspect", h.journal.toString());
    assertThat(inspect.code()).as(inspect.out()).isEqualTo(1);
    assertThat(inspect.err()).contains("records 0 to ").contains("were archived");
    assertThat(named(inspect.err(), h.journal)).as(inspect.err()).isEqualTo(1);

    Files.writeString(h.journal, "");
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.out()).isEqualTo(1);
    assertThat(verify.err())
        .startsWith("mesh journal verify: journal " + h.journal + " is older than the records");
    assertThat(named(verify.err(), h.journal)).as(verify.err()).isEqualTo(1);
  }

  @Test
  void aRefusalNamingOnlyASegment_isStillPrefixedWithTheJournal() throws Exception {
    History h = archivedTwice();
    Files.writeString(segments(h).getLast(), "x\n", java.nio.file.StandardOpenOption.APPEND);
    Run verify = mesh("journal", "verify", h.journal.toString());
    assertThat(verify.code()).as(verify.out()).isEqualTo(1);
    assertThat(verify.err()).startsWith("mesh journal verify: " + h.journal + ": journal record ");
  }
}
