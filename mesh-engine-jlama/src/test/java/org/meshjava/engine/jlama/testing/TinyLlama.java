package org.meshjava.engine.jlama.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * Writes a tiny Llama-family model directory — {@code config.json}, {@code model.safetensors} with
 * seeded random F32 weights under the tensor names Hugging Face Llama checkpoints use, and a
 * minimal {@code tokenizer.json} — so that tests and benchmarks run the real loading and
 * forward-pass code without downloading anything. The weights are noise: the model's output means
 * nothing, but it is a function of the seed, and every byte of it is read by the forward pass.
 *
 * <p>Shape: 2 layers, hidden 64, 4 attention heads (2 key/value heads), MLP 128, vocabulary 256,
 * context 256. Stateless and thread-safe.
 *
 * <p>A test fixture: it lives in mesh-engine-jlama's test jar ({@code <type>test-jar</type>}), in a
 * package of its own so that it never splits the engine's package when the test jar sits on the
 * class path beside the engine's module.
 */
public final class TinyLlama {
  /** Hidden size. */
  public static final int HIDDEN = 64;

  /** MLP width. */
  public static final int INTERMEDIATE = 128;

  /** Transformer layers. */
  public static final int LAYERS = 2;

  /** Attention heads. */
  public static final int HEADS = 4;

  /** Key/value heads (grouped-query attention). */
  public static final int KV_HEADS = 2;

  /** Vocabulary size. */
  public static final int VOCABULARY = 256;

  /** Context length. */
  public static final int CONTEXT = 256;

  /** Beginning-of-sequence token id. */
  public static final int BOS = 1;

  /** End-of-sequence token id. */
  public static final int EOS = 2;

  private TinyLlama() {}

  /**
   * Writes the model into {@code dir} (created if absent), its weights drawn from {@code seed}.
   *
   * @throws IOException if writing fails
   */
  public static void write(Path dir, long seed) throws IOException {
    Objects.requireNonNull(dir, "dir");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("config.json"), config(), StandardCharsets.UTF_8);
    Files.write(dir.resolve("model.safetensors"), safetensors(seed));
    Files.writeString(dir.resolve("tokenizer.json"), tokenizer(), StandardCharsets.UTF_8);
  }

  /**
   * Writes the same model as {@link #write} with the same seed, its weights stored as BF16 (each
   * value's upper 16 bits, truncated) and {@code torch_dtype} {@code bfloat16}, as most published
   * checkpoints are.
   *
   * @throws IOException if writing fails
   */
  public static void writeBf16(Path dir, long seed) throws IOException {
    Objects.requireNonNull(dir, "dir");
    Files.createDirectories(dir);
    Files.writeString(
        dir.resolve("config.json"),
        config().replace("\"float32\"", "\"bfloat16\""),
        StandardCharsets.UTF_8);
    Files.write(dir.resolve("model.safetensors"), encode(values(seed), true));
    Files.writeString(dir.resolve("tokenizer.json"), tokenizer(), StandardCharsets.UTF_8);
  }

  /**
   * Writes the same model as {@link #write} with the same seed, but sharded: the tensors of the
   * embedding and the first layer in {@code model-00001-of-00002.safetensors}, the rest in {@code
   * model-00002-of-00002.safetensors}, and a {@code model.safetensors.index.json} whose {@code
   * weight_map} names them.
   *
   * @throws IOException if writing fails
   */
  public static void writeSharded(Path dir, long seed) throws IOException {
    Objects.requireNonNull(dir, "dir");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("config.json"), config(), StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("tokenizer.json"), tokenizer(), StandardCharsets.UTF_8);
    Map<String, float[]> values = values(seed);
    Map<String, float[]> first = new LinkedHashMap<>();
    Map<String, float[]> second = new LinkedHashMap<>();
    StringBuilder map = new StringBuilder();
    for (Map.Entry<String, float[]> e : values.entrySet()) {
      boolean early =
          e.getKey().startsWith("model.embed") || e.getKey().startsWith("model.layers.0.");
      String shard =
          early ? "model-00001-of-00002.safetensors" : "model-00002-of-00002.safetensors";
      (early ? first : second).put(e.getKey(), e.getValue());
      map.append(map.isEmpty() ? "" : ",")
          .append('"')
          .append(e.getKey())
          .append("\":\"")
          .append(shard)
          .append('"');
    }
    Files.write(dir.resolve("model-00001-of-00002.safetensors"), encode(first));
    Files.write(dir.resolve("model-00002-of-00002.safetensors"), encode(second));
    Files.writeString(
        dir.resolve("model.safetensors.index.json"),
        "{\"metadata\":{},\"weight_map\":{" + map + "}}",
        StandardCharsets.UTF_8);
  }

  private static String config() {
    return """
        {
          "architectures": ["LlamaForCausalLM"],
          "model_type": "llama",
          "hidden_size": %d,
          "intermediate_size": %d,
          "num_attention_heads": %d,
          "num_key_value_heads": %d,
          "num_hidden_layers": %d,
          "vocab_size": %d,
          "max_position_embeddings": %d,
          "rms_norm_eps": 1e-05,
          "rope_theta": 10000.0,
          "hidden_act": "silu",
          "bos_token_id": %d,
          "eos_token_id": %d,
          "tie_word_embeddings": false,
          "torch_dtype": "float32"
        }
        """
        .formatted(HIDDEN, INTERMEDIATE, HEADS, KV_HEADS, LAYERS, VOCABULARY, CONTEXT, BOS, EOS);
  }

  private static Map<String, int[]> tensors() {
    int headDim = HIDDEN / HEADS;
    Map<String, int[]> t = new LinkedHashMap<>();
    t.put("model.embed_tokens.weight", new int[] {VOCABULARY, HIDDEN});
    for (int i = 0; i < LAYERS; i++) {
      String p = "model.layers." + i + ".";
      t.put(p + "input_layernorm.weight", new int[] {HIDDEN});
      t.put(p + "self_attn.q_proj.weight", new int[] {HIDDEN, HIDDEN});
      t.put(p + "self_attn.k_proj.weight", new int[] {KV_HEADS * headDim, HIDDEN});
      t.put(p + "self_attn.v_proj.weight", new int[] {KV_HEADS * headDim, HIDDEN});
      t.put(p + "self_attn.o_proj.weight", new int[] {HIDDEN, HIDDEN});
      t.put(p + "post_attention_layernorm.weight", new int[] {HIDDEN});
      t.put(p + "mlp.gate_proj.weight", new int[] {INTERMEDIATE, HIDDEN});
      t.put(p + "mlp.up_proj.weight", new int[] {INTERMEDIATE, HIDDEN});
      t.put(p + "mlp.down_proj.weight", new int[] {HIDDEN, INTERMEDIATE});
    }
    t.put("model.norm.weight", new int[] {HIDDEN});
    t.put("lm_head.weight", new int[] {VOCABULARY, HIDDEN});
    return t;
  }

  private static byte[] safetensors(long seed) {
    return encode(values(seed));
  }

  /** Every tensor's values, drawn in a fixed order from one seeded stream. */
  private static Map<String, float[]> values(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, float[]> out = new LinkedHashMap<>();
    for (Map.Entry<String, int[]> e : tensors().entrySet()) {
      float[] v = new float[(int) count(e.getValue())];
      boolean norm = e.getKey().endsWith("norm.weight");
      for (int i = 0; i < v.length; i++) {
        // Norm gains near 1 and small projections keep activations in range through the layers.
        float u = (float) (random.nextDouble() * 2 - 1);
        v[i] = norm ? 1f + 0.1f * u : 0.2f * u;
      }
      out.put(e.getKey(), v);
    }
    return out;
  }

  private static byte[] encode(Map<String, float[]> values) {
    return encode(values, false);
  }

  private static byte[] encode(Map<String, float[]> values, boolean bf16) {
    int width = bf16 ? 2 : 4;
    Map<String, int[]> shapes = tensors();
    StringBuilder header = new StringBuilder("{\"__metadata__\":{\"format\":\"pt\"}");
    long offset = 0;
    for (Map.Entry<String, float[]> e : values.entrySet()) {
      int[] shape = java.util.Objects.requireNonNull(shapes.get(e.getKey()));
      header
          .append(",\"")
          .append(e.getKey())
          .append("\":{\"dtype\":\"")
          .append(bf16 ? "BF16" : "F32")
          .append("\",\"shape\":[");
      for (int d = 0; d < shape.length; d++) {
        header.append(d == 0 ? "" : ",").append(shape[d]);
      }
      long n = e.getValue().length;
      header.append("],\"data_offsets\":[").append(offset).append(',').append(offset + width * n);
      header.append("]}");
      offset += width * n;
    }
    header.append('}');
    // Pad the header with spaces so the data starts 8-byte aligned, as the format allows.
    while ((header.length() + 8) % 8 != 0) {
      header.append(' ');
    }
    byte[] h = header.toString().getBytes(StandardCharsets.UTF_8);
    ByteBuffer out =
        ByteBuffer.allocate(8 + h.length + (int) offset).order(ByteOrder.LITTLE_ENDIAN);
    out.putLong(h.length).put(h);
    for (float[] v : values.values()) {
      for (float f : v) {
        if (bf16) {
          out.putShort((short) (Float.floatToRawIntBits(f) >>> 16));
        } else {
          out.putFloat(f);
        }
      }
    }
    return out.array();
  }

  private static long count(int[] shape) {
    long n = 1;
    for (int d : shape) {
      n *= d;
    }
    return n;
  }

  /**
   * A byte-level vocabulary: ids 0–2 are {@code <unk>}, {@code <s>}, {@code </s>}; id {@code 3 + b}
   * is the byte-fallback token {@code <0xNN>} for byte {@code b} below 253. No merges.
   */
  private static String tokenizer() {
    StringBuilder vocab = new StringBuilder("\"<unk>\":0,\"<s>\":1,\"</s>\":2");
    for (int b = 0; b < VOCABULARY - 3; b++) {
      vocab.append(",\"<0x").append(String.format("%02X", b)).append(">\":").append(3 + b);
    }
    return """
        {
          "version": "1.0",
          "added_tokens": [
            {"id": 0, "content": "<unk>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 1, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true},
            {"id": 2, "content": "</s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}
          ],
          "normalizer": null,
          "pre_tokenizer": null,
          "model": {"type": "BPE", "unk_token": "<unk>", "fuse_unk": true, "byte_fallback": true, "vocab": {%s}, "merges": []}
        }
        """
        .formatted(vocab);
  }
}
