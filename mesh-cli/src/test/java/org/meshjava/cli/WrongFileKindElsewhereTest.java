package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.meshjava.cli.MeshCommandTest.mesh;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.cli.MeshCommandTest.Run;

/**
 * The other commands that read one kind of mesh file, handed a key file: {@code mesh serve
 * --revocations} refused it with the decoder's "LENGTH_LIMIT at offset 0", {@code mesh log verify
 * --checkpoint} with "MALFORMED_NOTE", and {@code mesh log prove --envelope} sent the key's id to
 * the server and relayed its 404. Each now says the file looks like a key file, before anything
 * starts or is asked.
 */
class WrongFileKindElsewhereTest {
  @TempDir Path tmp;
  private Path key;
  private String did;

  @BeforeEach
  void aKey() {
    key = tmp.resolve("steward.key");
    Run made = mesh("key", "generate", "--out", key.toString());
    assertThat(made.code()).as(made.err()).isZero();
    did = made.out().strip();
  }

  @Test
  void serveRevocations_givenAKey_isRefusedNamingIt_beforeItStarts() {
    Run r = mesh("serve", "--revocations", key.toString(), "--port", "0");
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip().lines().toList().getLast())
        .isEqualTo(
            "mesh serve: "
                + key
                + " holds no revocations: it looks like a key file (an Ed25519 seed, 64 hex"
                + " digits); mesh key show reads it");
  }

  @Test
  void logVerifyCheckpoint_givenAKey_isRefusedNamingIt() {
    Run r = mesh("log", "verify", "--checkpoint", key.toString(), "--steward", did);
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "mesh log verify: checkpoint file "
                + key
                + " is not a checkpoint: it looks like a key file (an Ed25519 seed, 64 hex"
                + " digits); mesh key show reads it");
  }

  @Test
  void logProveEnvelope_givenAKey_isRefusedNamingIt_withoutAskingTheServer() {
    // Port 1 answers nothing: a refusal that asked the server would say "connection refused".
    Run r = mesh("log", "prove", "--server", "127.0.0.1:1", "--envelope", key.toString());
    assertThat(r.code()).isEqualTo(1);
    assertThat(r.err().strip())
        .isEqualTo(
            "mesh log prove: "
                + key
                + " does not hold a hex envelope: it looks like a key file (an Ed25519 seed, 64"
                + " hex digits); mesh key show reads it");
  }
}
