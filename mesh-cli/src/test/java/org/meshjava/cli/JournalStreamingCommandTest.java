package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.ContentId;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.internal.JournalChain;
import org.meshjava.journal.testing.ChildJava;

/**
 * {@code mesh journal verify}, {@code inspect} and {@code export} read a journal record by record,
 * so their memory does not grow with its length. They used to read it whole (its bytes, every line
 * and every decoded record) and ran out of heap on a journal a busy steward writes in minutes: with
 * the sizes below, the old code fails with {@code OutOfMemoryError}.
 */
class JournalStreamingCommandTest {
  /**
   * The heap the commands get: streamed, each needs between 16 and 20 MiB of it (a JVM's start, the
   * replay's batches; verify ran out of heap at {@code -Xmx16m} on 20 000 records, and passed at
   * {@code -Xmx20m} on 60 000); read whole, the journal below does not fit.
   */
  private static final String HEAP = "-Xmx24m";

  /**
   * About 210 bytes each: an 8.4 MB journal. Held whole (each record decoded, its line kept), it
   * overflows the heap in each command: with a reader that collects every record before handing any
   * on, verify, inspect and export each ran out of {@link #HEAP} at 30 000 records (not at 20 000).
   * No more than that margin needs: writing the records and the three commands' reading them are
   * most of this class's time.
   */
  private static final int RECORDS = 40_000;

  /** The torn final line the big journal ends with, as a steward killed mid-write leaves one. */
  private static final byte[] TORN = "{\"seq\":".getBytes(StandardCharsets.US_ASCII);

  /**
   * The big journal: {@link #RECORDS} records and then {@link #TORN}, written once for the class
   * (writing it is a good part of a case's time) and only read by the cases.
   */
  @TempDir static Path shared;

  private static Path big;

  /** The length of {@link #big}'s whole records. */
  private static long bigWhole;

  @TempDir Path tmp;

  private static Path bigJournal() throws Exception {
    if (big == null) {
      Path journal = shared.resolve("big.journal");
      bigWhole = writeReceipts(journal, RECORDS);
      Files.write(journal, TORN, StandardOpenOption.APPEND);
      big = journal;
    }
    return big;
  }

  @Test
  void verifyInspectAndExport_runInAHeapTooSmallToHoldTheJournalWhole() throws Exception {
    Path journal = bigJournal();
    long whole = bigWhole;
    byte[] torn = TORN;
    assertThat(Files.size(journal)).isGreaterThan(8L << 20);

    Child v = child("journal", "verify", journal.toString());
    assertThat(v.code()).as(v.output()).isZero();
    assertThat(v.output())
        .contains(RECORDS + " records form one chain and replay")
        .contains(RECORDS + " receipts")
        .contains("no checkpoint of the transparency log to check")
        .contains("a final line of " + torn.length + " bytes without a newline");

    Child i = child("journal", "inspect", journal.toString());
    assertThat(i.code()).as(i.output().lines().limit(20).toList().toString()).isZero();
    assertThat(i.output()).contains("#" + (RECORDS - 1) + " Sealed receipt " + (RECORDS - 1));

    Path copy = tmp.resolve("copy.journal");
    Child e = child("journal", "export", journal.toString(), "--out", copy.toString());
    assertThat(e.code()).as(e.output()).isZero();
    assertThat(e.output()).contains(RECORDS + " records written to " + copy);
    assertThat(Files.size(copy)).isEqualTo(whole);
    assertThat(Files.mismatch(copy, journal)).as("a copy of the whole records").isEqualTo(whole);
  }

  @Test
  void export_leavesNoFile_whenTheChainBreaksPartWay() throws Exception {
    Path journal = tmp.resolve("broken.journal");
    writeReceipts(journal, 10);
    List<String> lines = new ArrayList<>(Files.readAllLines(journal));
    lines.set(
        6,
        lines
            .get(6)
            .replaceFirst("\"prev\":\"[0-9a-f]{64}\"", "\"prev\":\"" + "0".repeat(64) + "\""));
    Files.write(journal, lines);
    Path copy = tmp.resolve("copy.journal");

    MeshCommandTest.Run r = mesh("journal", "export", journal.toString(), "--out", copy.toString());

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("journal record 6").contains("do not form one chain");
    assertThat(copy).as("no part copy is left").doesNotExist();
  }

  @Test
  void export_stoppedBySigterm_leavesNoFileThatReadsAsAShorterJournal() throws Exception {
    Path journal = bigJournal();
    Path copy = tmp.resolve("copy.journal");
    // A progress line for every record, into a pipe read only as far as the first: the pipe fills
    // within a few thousand records and holds the export there, part way, until it is stopped, so
    // it cannot finish first however the machine schedules the two processes.
    Process p =
        start(
                "journal",
                "export",
                journal.toString(),
                "--out",
                copy.toString(),
                "--progress-every",
                "1")
            .redirectErrorStream(true)
            .start();
    try (var lines =
        new java.io.BufferedReader(
            new java.io.InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      // Under way: the first progress line comes at the first record.
      String line = lines.readLine();
      while (line != null && !line.startsWith("checked ")) {
        line = lines.readLine();
      }
      assertThat(line).as("a progress line").isNotNull();
      p.destroy(); // SIGTERM, as a service manager or a Ctrl-C stops it
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(p.exitValue()).as("stopped, not finished").isNotZero();
    assertThat(copy).as("no part copy at --out").doesNotExist();
    try (var left = Files.list(tmp)) {
      assertThat(left.map(f -> f.getFileName().toString())).as("nothing beside --out").isEmpty();
    }
    assertThat(journal).as("the journal, as it was").hasSize(bigWhole + TORN.length);
  }

  @Test
  void export_refusesAnExistingFile_andLeavesItAsItWas() throws Exception {
    Path journal = tmp.resolve("j.journal");
    writeReceipts(journal, 3);
    Path copy = Files.writeString(tmp.resolve("copy.journal"), "mine");

    MeshCommandTest.Run r = mesh("journal", "export", journal.toString(), "--out", copy.toString());

    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err()).contains("exists; not overwritten");
    assertThat(copy).hasContent("mine");
  }

  @Test
  void inspect_ofAJournalThatNamesNoSteward_doesNotPresentAThrowawayKeyAsItsSteward()
      throws Exception {
    Path journal = tmp.resolve("ungranted.journal");
    writeReceipts(journal, 3);

    MeshCommandTest.Run r = mesh("journal", "inspect", journal.toString());

    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("spend per grant (steward not named):").doesNotContain("did:key");
  }

  /** Writes {@code n} chained records of ungranted receipts; returns the file's length. */
  static long writeReceipts(Path file, int n) throws Exception {
    JournalChain chain = JournalChain.recover(List.of());
    try (OutputStream out =
        new BufferedOutputStream(Files.newOutputStream(file, StandardOpenOption.CREATE_NEW))) {
      for (int i = 0; i < n; i++) {
        ContentId envelope = ContentId.ofBytes(("envelope " + i).getBytes(StandardCharsets.UTF_8));
        for (JournalChain.Encoded e : chain.advance(new JournalEntry.Sealed(i, envelope))) {
          out.write(e.line());
          out.write('\n');
        }
      }
    }
    return Files.size(file);
  }

  private record Child(int code, String output) {}

  /** Runs {@code mesh args} in a JVM of its own with a heap of {@link #HEAP}. */
  private Child child(String... args) throws Exception {
    Path log = Files.createTempFile(tmp, "mesh", ".log");
    Process p = start(args).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("mesh " + String.join(" ", args) + " did not finish");
    }
    return new Child(p.exitValue(), Files.readString(log));
  }

  /** {@code mesh args} in a JVM of its own with a heap of {@link #HEAP}, to start. */
  private static ProcessBuilder start(String... args) {
    return new ProcessBuilder(
        ChildJava.command(
            List.of(HEAP, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"), Mesh.class, args));
  }
}
