package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Regression: {@code ./mesh serve --help} printed the JVM's {@code WARNING: Using incubator
 * modules: jdk.incubator.vector} above its usage, since the launcher added the Vector API (for
 * Jlama backends) to every command line with a word {@code serve} anywhere in it, help and {@code
 * mesh grant show --chain serve} included. Only a serve that will serve gets it now. The launcher
 * is run against a stand-in JDK whose {@code java} writes down its arguments.
 */
class LauncherServeHelpTest {
  private static final String VECTOR = "--add-modules=jdk.incubator.vector";

  @TempDir Path root;

  /** The arguments the launcher starts {@code java} with for {@code mesh args}. */
  private List<String> javaArguments(String... args) throws IOException, InterruptedException {
    return LauncherCopy.javaArguments(root, Map.of(), args);
  }

  @Test
  void serveAskedForItsHelpOrVersion_startsWithoutTheVectorModule() throws Exception {
    assertThat(javaArguments("serve", "--help")).doesNotContain(VECTOR).contains("--help");
    assertThat(javaArguments("serve", "--port", "0", "-h")).doesNotContain(VECTOR);
    assertThat(javaArguments("serve", "--version")).doesNotContain(VECTOR);
  }

  @Test
  void aServeWithAJlamaBackend_stillGetsTheVectorModule_andOnlyItDoes() throws Exception {
    Path jlama = root.resolve("jlama.json");
    Files.writeString(
        jlama, "{\"backends\": [{\"type\": \"jlama\", \"name\": \"l\", \"model_dir\": \"m\"}]}");

    assertThat(javaArguments("serve", "--config", jlama.toString(), "--port", "0"))
        .contains(VECTOR);
    assertThat(javaArguments("serve", "--config=" + jlama)).contains(VECTOR);
    // A configuration in a file the launcher reads as written: only relative to where it was typed.
    assertThat(javaArguments("serve", "--config", "jlama.json")).contains(VECTOR);
    assertThat(javaArguments("serve", "--config", jlama.toString(), "--help"))
        .doesNotContain(VECTOR);
    assertThat(javaArguments("grant", "show", "--chain", "serve")).doesNotContain(VECTOR);
  }

  /**
   * An ONNX backend digests its model file with the large-input BLAKE3, whose vector kernel (about
   * 15x the scalar one) runs only when the JVM has the module: an ONNX serve keeps it.
   */
  @Test
  void aServeWithAnOnnxBackend_keepsTheVectorModule_forItsWeightsDigest() throws Exception {
    Path onnx = root.resolve("onnx.json");
    Files.writeString(
        onnx,
        "{\"backends\": [{\"type\": \"onnx-minilm\", \"name\": \"m\", \"model_dir\": \"m\"}]}");

    assertThat(javaArguments("serve", "--config", onnx.toString())).contains(VECTOR);
  }

  /**
   * A configuration the launcher cannot read ahead may name a jlama backend: a pipe (reading it
   * would leave it empty for the command) or picocli's {@code @file} arguments. Those keep the
   * module, as every serve had it before.
   */
  @Test
  void aServeWhoseConfigurationCannotBeReadAhead_keepsTheVectorModule() throws Exception {
    Path fifo = root.resolve("config.fifo");
    Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
    assertThat(mkfifo.waitFor()).isZero();

    assertThat(javaArguments("serve", "--config", fifo.toString())).contains(VECTOR);
    assertThat(javaArguments("serve", "@serve-args.txt")).contains(VECTOR);
  }

  /**
   * Regression: every {@code mesh serve} got the Vector API, so the JVM's incubator warning was
   * stderr's first line even above a usage error ({@code mesh serve --prot 1}) and on every serve
   * with no Jlama backend, the README's tour included, which never use it.
   */
  @Test
  void aServeWithoutAJlamaBackend_startsWithoutTheVectorModule() throws Exception {
    Path reference = root.resolve("reference.json");
    Files.writeString(reference, "{\"backends\": [{\"type\": \"reference\", \"name\": \"r\"}]}");

    assertThat(javaArguments("serve", "--port", "0")).doesNotContain(VECTOR);
    assertThat(javaArguments("serve", "--prot", "1")).doesNotContain(VECTOR);
    assertThat(javaArguments("serve", "--config", reference.toString())).doesNotContain(VECTOR);
    assertThat(javaArguments("serve", "--config", "missing.json")).doesNotContain(VECTOR);
  }
}
