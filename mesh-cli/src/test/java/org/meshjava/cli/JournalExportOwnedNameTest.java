package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.FileJournalTamperingTest.History;
import org.meshjava.cli.MeshCommandTest.Run;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.internal.JournalSegments;

/**
 * {@code mesh journal export --out} refuses a name that a file journal's own machinery, or another
 * write's, owns (SPEC.md 60.8): the file an archive writes before its rename, which the journal's
 * next opening deletes; a file in its segment or snapshot folder, or either folder's name; its
 * archive marker and the marker's twin; a partial file of a write. The copy written there was
 * deleted, or taken for the journal's own, by the next start. Refused naming why, nothing written.
 */
class JournalExportOwnedNameTest {
  @TempDir Path tmp;

  @Test
  void anOutTheJournalsMachineryOwns_isRefusedNamingWhy_andNothingIsWritten() throws Exception {
    History h = new History(tmp, SigningKey.generate(), "steward").serve(2, "granted");
    Path j = h.journal;
    String name = j.getFileName().toString();
    Map<Path, String> owned =
        Map.of(
            j.resolveSibling(name + ".archiving"),
            "deleted by the next opening of journal " + j,
            JournalSegments.directory(j).resolve("00000000000000000000.jsonl"),
            "a file in the segment folder of journal " + j,
            JournalSegments.directory(j),
            "the segment folder of journal " + j,
            j.resolveSibling(name + ".snapshots"),
            "the snapshot folder of journal " + j,
            h.snapshots.resolve("00000000000000000001.snapshot"),
            "a file in the snapshot folder of journal " + j,
            JournalSegments.marker(j),
            "the archive marker of journal " + j,
            JournalSegments.markerTwin(j),
            "the archive marker's twin of journal " + j,
            tmp.resolve(".copy.journal.partial-1-2"),
            "a partial file of a write of " + tmp.resolve("copy.journal"));
    for (Map.Entry<Path, String> e : owned.entrySet()) {
      Path out = e.getKey();
      boolean there = Files.exists(out);
      Run r = mesh("journal", "export", j.toString(), "--out", out.toString());
      if (there) {
        // A folder already made (the snapshot folder) is refused as there.
        assertThat(r.err()).as(out.toString()).contains("exists; not overwritten");
      } else {
        assertThat(r.err())
            .as(out.toString())
            .startsWith("mesh journal export: --out " + out + ": that name is ")
            .contains(e.getValue())
            .contains("name another file");
        assertThat(out).doesNotExist();
      }
      assertThat(r.code()).as(out.toString()).isEqualTo(1);
    }
    Path fine = tmp.resolve("copy.journal");
    Run ok = mesh("journal", "export", j.toString(), "--out", fine.toString());
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(Files.readAllBytes(fine)).isEqualTo(Files.readAllBytes(j));
  }
}
