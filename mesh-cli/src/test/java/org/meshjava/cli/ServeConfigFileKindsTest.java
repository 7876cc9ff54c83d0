package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * {@code mesh serve --config} naming something that is no configuration file (a folder, a file of 2
 * GiB, bytes that are not UTF-8, an empty file) is refused in one line naming it and why, exit 1,
 * before anything starts: no journal is created, so nothing is left behind or locked.
 */
class ServeConfigFileKindsTest {
  @TempDir Path tmp;

  /** {@code mesh serve --config config} with a journal of its own, which must not be created. */
  private Run serveWith(Path config) {
    Path journal = tmp.resolve("steward.journal");
    Run r =
        mesh(
            "serve",
            "--config",
            config.toString(),
            "--journal",
            journal.toString(),
            "--port",
            "0",
            "--meter",
            "estimator");
    assertThat(r.code()).as(r.err()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
    assertThat(r.err()).startsWith("mesh serve: ").contains(config.toString());
    assertThat(journal).doesNotExist();
    return r;
  }

  @Test
  void aFolder_isRefusedAsAFolder() throws Exception {
    Path folder = Files.createDirectory(tmp.resolve("mesh.json"));
    assertThat(serveWith(folder).err()).contains("it is a folder");
  }

  @Test
  void aFileOfTwoGigabytes_isRefusedAsTooLarge_withoutReadingIt() throws Exception {
    Path big = tmp.resolve("big.json");
    try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
      f.setLength(2L << 30); // sparse: no disk, and the refusal reads 64 MiB and 1 byte at most
    }
    assertThat(serveWith(big).err()).contains("is larger than " + UserFile.MAX_TEXT_BYTES);
  }

  @Test
  void bytesThatAreNotUtf8_areRefusedAsNotText() throws Exception {
    Path latin1 = Files.write(tmp.resolve("latin1.json"), new byte[] {'{', '"', (byte) 0xE9, '"'});
    assertThat(serveWith(latin1).err()).contains("is not text (binary data, or not UTF-8)");
  }

  @Test
  void anEmptyFile_isRefusedSayingWhatAConfigurationIs() throws Exception {
    Path empty = Files.createFile(tmp.resolve("empty.json"));
    assertThat(serveWith(empty).err()).contains("one JSON object");
  }
}
