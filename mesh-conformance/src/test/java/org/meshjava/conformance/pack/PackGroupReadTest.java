package org.meshjava.conformance.pack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A group file is read from its bytes, so a pack is read wherever a {@link Path} can name it: on
 * disk, or inside a zip file (a pack shipped as one archive), not only where {@code Path.toFile()}
 * works.
 */
class PackGroupReadTest {
  private static final String GROUP =
      """
      {
        "profile" : "mesh/1",
        "group" : "identity",
        "description" : "one case",
        "case_count" : 1,
        "cases" : [
          {
            "id" : "identity/one",
            "comment" : "seed 00 01 .. 1f",
            "op" : "did_key",
            "input" : {
              "seed" : "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
            },
            "result" : "valid",
            "expected" : {
              "did_key" : "did:key:z6MkehRgf7yJbgaGfYsdoAsKdBPE3dj2CYhowQdcjqSJgvVd"
            }
          }
        ]
      }
      """;

  @Test
  void aGroupInsideAZipFile_readsAsFromDisk(@TempDir Path dir) throws IOException {
    Path onDisk = dir.resolve("identity.json");
    Files.writeString(onDisk, GROUP);
    URI zip = URI.create("jar:" + dir.resolve("pack.zip").toUri());
    try (FileSystem fs = FileSystems.newFileSystem(zip, Map.of("create", "true"))) {
      Path zipped = fs.getPath("/cases/identity.json");
      Files.createDirectories(zipped.getParent());
      Files.writeString(zipped, GROUP);

      assertThat(PackGroup.readAll(zipped.getParent())).containsExactly(PackGroup.read(onDisk));
    }
  }

  @Test
  void bytesThatAreNoGroup_areRefusedNamingTheirSource() {
    assertThatThrownBy(
            () -> PackGroup.read("{\"profile\":".getBytes(StandardCharsets.UTF_8), "pack.jar!/x"))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith("pack.jar!/x is not JSON (line 1, column ");
    assertThatThrownBy(() -> PackGroup.read(new byte[0], "empty.json"))
        .isInstanceOf(IOException.class)
        .hasMessage("empty.json is not a mesh/1 pack group");
  }
}
