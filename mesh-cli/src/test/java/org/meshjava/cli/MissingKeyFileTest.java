package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: a key file that does not exist (the tour's {@code serve --key steward.key} before its
 * {@code key generate}, or a mistyped name) was refused with {@code cannot read key file
 * steward.key: no such file} and nothing on how a key file is made. Every command that reads one
 * now says, in the same line.
 */
class MissingKeyFileTest {
  @TempDir Path tmp;

  @Test
  void aKeyFileThatDoesNotExist_isRefusedInOneLine_sayingHowToMakeOne() {
    Path key = tmp.resolve("steward.key");
    for (String[] args :
        new String[][] {
          {"key", "show", "--key", key.toString()},
          {"serve", "--key", key.toString(), "--port", "0"},
          {
            "grant",
            "issue",
            "--issuer-key",
            key.toString(),
            "--subject",
            "did:key:z6MkoAtz2tewJ8erTGi5q2wnQuqBSftZfdhPsH2JgbZXfFMD",
            "--budget-uj",
            "1",
            "--expires",
            "PT1H",
            "--out",
            tmp.resolve("g.hex").toString()
          }
        }) {
      MeshCommandTest.Run r = mesh(args);
      assertThat(r.code()).as(r.err()).isEqualTo(1);
      assertThat(r.err().strip().lines()).as(r.err()).hasSize(1);
      assertThat(r.err())
          .contains("cannot read key file " + key + ": no such file")
          .contains("mesh key generate --out " + key);
    }
  }
}
