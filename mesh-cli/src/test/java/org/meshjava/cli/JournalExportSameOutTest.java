package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;

/**
 * Two {@code mesh journal export} runs in one JVM (an embedder's threads) writing the same {@code
 * --out}: the second starts from the first's progress line, while the first holds its partial copy
 * open, and runs to its end before the first goes on. Each writes its own partial copy, so the one
 * that publishes first writes the whole journal and the other is refused because {@code --out}
 * exists, with nothing left beside it.
 */
class JournalExportSameOutTest {
  @TempDir Path tmp;

  @Test
  void anExportStartedOnAnotherThreadWhileOneWrites_eachHasItsOwnPartialCopy() throws Exception {
    assertSecondWinsAndFirstIsRefused(
        (h, out) -> CompletableFuture.supplyAsync(() -> export(h, out)).join());
  }

  @Test
  void anExportStartedOnTheSameThreadWhileOneWrites_eachHasItsOwnPartialCopy() throws Exception {
    assertSecondWinsAndFirstIsRefused(JournalExportSameOutTest::export);
  }

  private static Run export(History h, Path out) {
    return mesh("journal", "export", h.journal.toString(), "--out", out.toString());
  }

  /**
   * Exports a journal of 4 serves to {@code out}, running {@code second} (another export to the
   * same file) from the first's progress line: the second, run in full first, writes the journal
   * whole; the first is refused, and nothing but {@code out} is left in its folder.
   */
  private void assertSecondWinsAndFirstIsRefused(BiFunction<History, Path, Run> second)
      throws Exception {
    History h = new History(tmp, SigningKey.generate(), "steward").serve(4, "granted");
    Path out = tmp.resolve("out").resolve("copy.journal");
    Files.createDirectories(out.getParent());
    ArchiveDuringCommand run =
        ArchiveDuringCommand.run(
            "checked 1 record",
            () -> second.apply(h, out),
            "export",
            h.journal.toString(),
            "--out",
            out.toString());

    assertThat(run.archive().code()).as(run.archive().err()).isZero();
    assertThat(Files.readAllBytes(out)).isEqualTo(Files.readAllBytes(h.journal));
    assertThat(run.command().code()).isEqualTo(1);
    assertThat(run.command().err()).contains("--out " + out + " exists; not overwritten");
    try (Stream<Path> left = Files.list(out.getParent())) {
      assertThat(left).containsExactly(out);
    }
  }
}
