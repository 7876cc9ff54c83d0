package org.meshjava.core.weights;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeSet;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.internal.Blake3Large;

/**
 * Computes the weights digest of a model directory (§3.6) over the files a forward pass reads:
 * {@code config.json} with {@code model.safetensors}, or {@code config.json} with {@code
 * model.safetensors.index.json} and every shard its {@code weight_map} names (each once). Tokenizer
 * files and anything else in the directory do not reach the forward pass and are not covered, so
 * changing them leaves the digest unchanged.
 *
 * <p>Every byte of every covered file is hashed, once, with BLAKE3 (the large-input implementation
 * in {@code org.meshjava.core.crypto.internal}, not part of the API): mapped a window at a time and
 * hashed on several threads, so memory use does not grow with the model (a 20 GB checkpoint needs
 * the same few megabytes as a small one). A digest over a sample, header or size would bind
 * nothing.
 *
 * <p>Paths an index names are untrusted: an absolute path, a {@code ..} segment or a path that
 * resolves (through symbolic links) outside the directory is refused, as is a missing shard. A
 * backend should compute the digest from the same files it then loads; what changes on disk between
 * the two is outside what a digest can see.
 *
 * <p>Stateless and thread-safe.
 */
public final class ModelDirectory {
  /** The model configuration, always covered. */
  public static final String CONFIG = "config.json";

  /** The single-file weights. */
  public static final String SINGLE = "model.safetensors";

  /** The index of a sharded checkpoint. */
  public static final String INDEX = "model.safetensors.index.json";

  /** Where symbolic links inside the directory may point. */
  public enum Links {
    /** Every covered file must resolve inside the directory (the default). */
    CONFINED,
    /**
     * Links may point anywhere, as in a Hugging Face cache snapshot whose files link into a shared
     * blob store. Index paths must still be relative without {@code ..}.
     */
    FOLLOWED
  }

  /**
   * Told how far a digest has come, for a progress display: bytes hashed so far over all covered
   * files, and their total. Called on the thread that called {@code digest}, a few times a second
   * at most per file window, and once with {@code done == total} at the end.
   */
  @FunctionalInterface
  public interface Progress {
    /** Ignores every report. */
    Progress NONE = (done, total) -> {};

    /** Reports {@code done} of {@code total} bytes hashed. */
    void hashed(long done, long total);
  }

  /** Refuses duplicate keys, so a file cannot say two things under one name. */
  private static final JsonFactory JSON =
      JsonFactory.builder()
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private ModelDirectory() {}

  /**
   * The architecture family {@code dir}'s {@link #CONFIG} declares: its top-level {@code
   * model_type} string, as Hugging Face writes it ({@code "llama"}, say), or empty if it has none.
   * A backend checks it before loading, to refuse a model it cannot run with a clear reason.
   *
   * @throws IOException if the file cannot be read, or is not one JSON object (a {@link
   *     com.fasterxml.jackson.core.JacksonException} then)
   */
  public static Optional<String> modelType(Path dir) throws IOException {
    try (InputStream in = Files.newInputStream(dir.resolve(CONFIG));
        JsonParser p = JSON.createParser(in)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException(CONFIG + " is not a JSON object");
      }
      Optional<String> type = Optional.empty();
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (field.equals("model_type") && value == JsonToken.VALUE_STRING) {
          type = Optional.of(p.getText());
        } else {
          p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new IOException("trailing content after the " + CONFIG + " object");
      }
      return type;
    }
  }

  /**
   * Digests {@code dir} with links confined to it.
   *
   * @throws WeightsDigestException if the layout is unknown or ambiguous, the index is malformed, a
   *     file is missing or escapes the directory, or reading fails
   */
  public static WeightsDigest digest(Path dir) throws WeightsDigestException {
    return digest(dir, Links.CONFINED);
  }

  /**
   * Digests {@code dir} under the given link policy.
   *
   * @throws WeightsDigestException as {@link #digest(Path)}
   */
  public static WeightsDigest digest(Path dir, Links links) throws WeightsDigestException {
    return digest(dir, links, Runtime.getRuntime().availableProcessors(), Progress.NONE);
  }

  /**
   * Digests {@code dir} under the given link policy on {@code threads} threads (the caller's and
   * {@code threads - 1} started and stopped for the call), reporting to {@code progress}.
   *
   * @throws WeightsDigestException as {@link #digest(Path)}
   */
  public static WeightsDigest digest(Path dir, Links links, int threads, Progress progress)
      throws WeightsDigestException {
    Objects.requireNonNull(dir, "dir");
    Objects.requireNonNull(links, "links");
    Objects.requireNonNull(progress, "progress");
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be at least 1, got " + threads);
    }
    List<String> paths = forwardPassFiles(dir, links);
    List<Path> resolved = new ArrayList<>(paths.size());
    long total = 0;
    for (String p : paths) {
      Path file = confined(dir, p, links);
      resolved.add(file);
      total += size(file, p);
    }
    List<WeightsFile> files = new ArrayList<>(paths.size());
    long before = 0;
    for (int i = 0; i < paths.size(); i++) {
      long base = before;
      long all = total;
      String p = paths.get(i);
      files.add(
          new WeightsFile(
              p,
              hashFile(
                  resolved.get(i),
                  p,
                  threads,
                  done -> progress.hashed(Math.min(all, base + done), all))));
      before += size(resolved.get(i), p);
    }
    progress.hashed(total, total);
    return new WeightsDigest(files);
  }

  private static long size(Path file, String relative) throws WeightsDigestException {
    try {
      return Files.size(file);
    } catch (IOException e) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.IO_ERROR, relative, e.getMessage(), e);
    }
  }

  /** The relative paths the forward pass reads, in path order, each once. */
  static List<String> forwardPassFiles(Path dir, Links links) throws WeightsDigestException {
    if (!Files.isDirectory(dir)) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.MISSING_FILE, ".", "not a directory: " + dir);
    }
    if (!Files.exists(dir.resolve(CONFIG))) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.NO_CONFIG, CONFIG, "a model directory needs " + CONFIG);
    }
    boolean single = Files.exists(dir.resolve(SINGLE), LinkOption.NOFOLLOW_LINKS);
    boolean sharded = Files.exists(dir.resolve(INDEX), LinkOption.NOFOLLOW_LINKS);
    TreeSet<String> paths = new TreeSet<>();
    paths.add(CONFIG);
    if (single && sharded) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.AMBIGUOUS_LAYOUT,
          ".",
          "both " + SINGLE + " and " + INDEX + " are present");
    } else if (single) {
      paths.add(SINGLE);
    } else if (sharded) {
      paths.add(INDEX);
      paths.addAll(shards(dir, links));
    } else {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.UNKNOWN_LAYOUT,
          ".",
          "neither " + SINGLE + " nor " + INDEX + " is present");
    }
    // The encoding orders by UTF-8 bytes; WeightsDigest sorts, so TreeSet order here is only
    // for a stable read order.
    return List.copyOf(paths);
  }

  private static TreeSet<String> shards(Path dir, Links links) throws WeightsDigestException {
    Path index = confined(dir, INDEX, links);
    TreeSet<String> shards = new TreeSet<>();
    try (InputStream in = Files.newInputStream(index);
        JsonParser p = JSON.createParser(in)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw malformed("the index is not a JSON object");
      }
      boolean sawMap = false;
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        if (!field.equals("weight_map")) {
          p.skipChildren();
          continue;
        }
        if (value != JsonToken.START_OBJECT) {
          throw malformed("weight_map is not an object");
        }
        sawMap = true;
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String tensor = p.currentName();
          if (p.nextToken() != JsonToken.VALUE_STRING) {
            throw malformed("weight_map['" + tensor + "'] is not a file name");
          }
          String shard = p.getText();
          String problem = RelativePath.problem(shard);
          if (problem != null) {
            throw new WeightsDigestException(
                WeightsDigestException.Reason.PATH_ESCAPES,
                shard,
                "the index names a shard path that is " + problem);
          }
          shards.add(shard);
        }
      }
      if (p.nextToken() != null) {
        throw malformed("trailing content after the index object");
      }
      if (!sawMap || shards.isEmpty()) {
        throw malformed("the index has no non-empty weight_map");
      }
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw malformed("not valid JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.IO_ERROR, INDEX, e.getMessage(), e);
    }
    return shards;
  }

  private static WeightsDigestException malformed(String detail) {
    return new WeightsDigestException(WeightsDigestException.Reason.MALFORMED_INDEX, INDEX, detail);
  }

  /** Resolves a relative path and checks it is a regular file inside {@code dir} (per links). */
  private static Path confined(Path dir, String relative, Links links)
      throws WeightsDigestException {
    Path file = dir.resolve(relative);
    if (!Files.isRegularFile(file)) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.MISSING_FILE, relative, "missing or not a regular file");
    }
    if (links == Links.CONFINED) {
      try {
        Path root = dir.toRealPath();
        if (!file.toRealPath().startsWith(root)) {
          throw new WeightsDigestException(
              WeightsDigestException.Reason.PATH_ESCAPES,
              relative,
              "resolves outside the model directory");
        }
      } catch (IOException e) {
        throw new WeightsDigestException(
            WeightsDigestException.Reason.IO_ERROR, relative, e.getMessage(), e);
      }
    }
    return file;
  }

  private static ContentId hashFile(
      Path file, String relative, int threads, java.util.function.LongConsumer progress)
      throws WeightsDigestException {
    try {
      return ContentId.fromDigest(Blake3Large.hash(file, threads, progress));
    } catch (IOException e) {
      throw new WeightsDigestException(
          WeightsDigestException.Reason.IO_ERROR, relative, e.getMessage(), e);
    }
  }
}
