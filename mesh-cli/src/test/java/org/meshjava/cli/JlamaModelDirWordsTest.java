package org.meshjava.cli;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A jlama {@code model_dir} that is no folder, or a folder without a model's files, says which
 * files the folder must hold: a new user pointing it at a single downloaded file, or at the folder
 * above the model's, is told what a model folder is.
 */
class JlamaModelDirWordsTest {
  @TempDir Path tmp;

  private Path config(String modelDir) throws Exception {
    return Files.writeString(
        tmp.resolve("mesh.json"),
        "{\"backends\": [{\"type\": \"jlama\", \"name\": \"local\", \"model_dir\": \""
            + modelDir
            + "\"}]}");
  }

  /** Regression: the refusal said the folder was missing but not what it should hold. */
  @Test
  void aModelDirThatIsNoFolder_saysWhatTheFolderHolds() throws Exception {
    Files.writeString(tmp.resolve("model.safetensors"), "not a folder");
    assertThatThrownBy(() -> ServeConfig.read(config("model.safetensors")))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("model_dir 'model.safetensors' is not a folder")
        .hasMessageContaining("config.json, tokenizer.json and model.safetensors");
  }

  @Test
  void aModelDirWithoutTheModelsFiles_saysWhatTheFolderHolds() throws Exception {
    Files.createDirectories(tmp.resolve("models"));
    assertThatThrownBy(() -> ServeConfig.read(config("models")))
        .isInstanceOf(CliException.class)
        .hasMessageContaining("UNKNOWN_LAYOUT")
        .hasMessageContaining("a model folder holds config.json, tokenizer.json");
  }
}
