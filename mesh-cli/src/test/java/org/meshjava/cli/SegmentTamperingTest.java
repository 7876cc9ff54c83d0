package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * Edits of a journal's archived segments that FileJournalTamperingTest does not make: a segment's
 * last line cut at every byte, a segment replaced by a copy of another, two swapped by name, and a
 * segment's records overlapping the next one's. Each is refused by {@code mesh journal verify} and
 * by a {@code mesh serve} start alike, {@code CORRUPT}, naming the segment (SPEC.md §60.8,
 * "Segments"). Slow: a start and a verify per case.
 */
@Tag("slow")
class SegmentTamperingTest {
  @TempDir Path dir;

  /** One edit of the two segments, and the words both refusals carry. */
  record Case(String name, String says, Edit edit) {
    @Override
    public String toString() {
      return name;
    }
  }

  /** An edit of the segments (first, second) of a stopped steward's journal. */
  @FunctionalInterface
  interface Edit {
    void apply(Path first, Path second) throws Exception;
  }

  /** A journal archived twice, served on once more: two segments, a snapshot covering all. */
  static History twoSegments(Path dir) throws Exception {
    History h = new History(dir, SigningKey.generate(), "steward").serve(3, "granted");
    h.archive().serve(2, "later").archive().serve(1, "last");
    return h;
  }

  static List<Path> segments(History h) throws Exception {
    try (Stream<Path> s = Files.list(h.segments())) {
      return s.sorted().toList();
    }
  }

  /** The length of the last line of {@code file}, its newline included. */
  static int lastLineLength(Path file) throws Exception {
    List<String> l = Files.readAllLines(file);
    return l.getLast().getBytes(java.nio.charset.StandardCharsets.UTF_8).length + 1;
  }

  /** Cuts {@code file} to its length less {@code less} bytes. */
  static void cut(Path file, int less) throws Exception {
    byte[] b = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(b, b.length - less));
  }

  static Stream<Case> cases() {
    // Every byte of the cut is tried in SegmentCutTest (mesh-journal); here, one start and one
    // verify each for the newline alone, one byte more, half the line, all but its first byte, and
    // the whole line.
    List<Case> out = new ArrayList<>();
    for (int s = 0; s < 2; s++) {
      int which = s;
      for (String cut : List.of("1", "2", "half", "all but 1", "all")) {
        out.add(
            new Case(
                "segment " + which + "'s last line cut by " + cut + " bytes",
                "archived segment",
                (a, b) -> {
                  Path seg = which == 0 ? a : b;
                  int len = lastLineLength(seg);
                  int less =
                      switch (cut) {
                        case "half" -> len / 2;
                        case "all but 1" -> len - 1;
                        case "all" -> len;
                        default -> Integer.parseInt(cut);
                      };
                  cut(seg, less);
                }));
      }
    }
    out.add(
        new Case(
            "the second segment replaced by a copy of the first",
            "is named for record",
            (a, b) -> Files.copy(a, b, StandardCopyOption.REPLACE_EXISTING)));
    out.add(
        new Case(
            "the first segment replaced by a copy of the second",
            "is named for record",
            (a, b) -> Files.copy(b, a, StandardCopyOption.REPLACE_EXISTING)));
    out.add(
        new Case(
            "the two segments swapped by name",
            "is named for record",
            (a, b) -> {
              Path t = a.resolveSibling("t");
              Files.move(a, t);
              Files.move(b, a);
              Files.move(t, b);
            }));
    out.add(
        new Case(
            "the second segment's first two records copied onto the end of the first",
            "where the next segment begins",
            (a, b) -> {
              List<String> l = Files.readAllLines(b);
              Files.writeString(
                  a,
                  String.join("\n", l.subList(0, 2)) + "\n",
                  java.nio.file.StandardOpenOption.APPEND);
            }));
    out.add(
        new Case(
            "the first segment's last two records put before the second's, renamed to begin there",
            "where the next segment begins",
            (a, b) -> {
              List<String> first = Files.readAllLines(a);
              List<String> l = new ArrayList<>(first.subList(first.size() - 2, first.size()));
              l.addAll(Files.readAllLines(b));
              long start = Long.parseLong(b.getFileName().toString().replace(".jsonl", "")) - 2;
              Files.delete(b);
              Files.writeString(
                  b.resolveSibling("%020d.jsonl".formatted(start)), String.join("\n", l) + "\n");
            }));
    out.add(
        new Case(
            "an overlapping record, its prev edited, on the end of the first segment",
            "where the next segment begins",
            (a, b) -> {
              String line = Files.readAllLines(b).getFirst();
              int at = line.indexOf("\"prev\":\"") + 8;
              char c = line.charAt(at);
              Files.writeString(
                  a,
                  line.substring(0, at) + (c == '0' ? '1' : '0') + line.substring(at + 1) + "\n",
                  java.nio.file.StandardOpenOption.APPEND);
            }));
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void anEditOfTheSegments_isRefusedByVerifyAndByAStart(Case c) throws Exception {
    History h = twoSegments(dir);
    List<Path> segs = segments(h);
    c.edit().apply(segs.get(0), segs.get(1));
    Run verify = mesh("journal", "verify", h.journal.toString());
    Run start = FileJournalTamperingTest.serveUntilListening(h);
    String report = FileJournalTamperingTest.report(c, verify, start);
    assertThat(verify.code()).as(report).isEqualTo(1);
    assertThat(start.err()).as(report).doesNotContain("cannot listen");
    if (!c.says().isEmpty()) {
      assertThat(verify.err()).as(report).contains(c.says());
      assertThat(start.err()).as(report).contains(c.says());
    }
  }
}
