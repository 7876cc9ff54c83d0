package org.meshjava.conformance.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.meshjava.core.ContentId;
import org.meshjava.core.weights.ModelDirectory;
import org.meshjava.core.weights.WeightsDigest;
import org.meshjava.core.weights.WeightsFile;

/**
 * The tiny sharded model published with the {@code commitment} vector, so that its weights digest
 * (§3.6) can be recomputed from files: a {@code config.json}, a {@code
 * model.safetensors.index.json} naming two shards (one of them twice), the two shards — each a
 * valid safetensors file holding one F32 tensor of two values — and a {@code tokenizer.json} that
 * the digest leaves out.
 */
public final class TinyModel {
  /** The folder the files are published in, relative to the vector's folder. */
  public static final String DIR = "model";

  private TinyModel() {}

  /** The files, by path relative to {@link #DIR}. */
  public static Map<String, byte[]> files() {
    Map<String, byte[]> f = new TreeMap<>();
    f.put(
        ModelDirectory.CONFIG,
        utf8("{\"architectures\":[\"TinyForCausalLM\"],\"hidden_size\":2}\n"));
    f.put(
        ModelDirectory.INDEX,
        utf8(
            "{\"metadata\":{\"total_size\":24},\"weight_map\":{"
                + "\"embed.weight\":\"model-00001-of-00002.safetensors\","
                + "\"head.weight\":\"model-00002-of-00002.safetensors\","
                + "\"norm.weight\":\"model-00001-of-00002.safetensors\"}}\n"));
    f.put("model-00001-of-00002.safetensors", safetensors("embed.weight", 0.5f, -1.25f));
    f.put("model-00002-of-00002.safetensors", safetensors("head.weight", 3.0f, 0.125f));
    f.put("tokenizer.json", utf8("{\"model\":{\"type\":\"BPE\",\"vocab\":{}}}\n"));
    return Collections.unmodifiableMap(f);
  }

  /** The weights digest of {@link #files()}, computed from the bytes in memory by §3.6's rule. */
  public static WeightsDigest digest() {
    Map<String, byte[]> f = files();
    List<WeightsFile> covered = new ArrayList<>();
    for (String p :
        List.of(
            ModelDirectory.CONFIG,
            ModelDirectory.INDEX,
            "model-00001-of-00002.safetensors",
            "model-00002-of-00002.safetensors")) {
      covered.add(
          new WeightsFile(p, ContentId.ofBytes(java.util.Objects.requireNonNull(f.get(p)))));
    }
    return new WeightsDigest(covered);
  }

  /** A safetensors file: u64 LE header length, a JSON header padded to 8 bytes, the data. */
  private static byte[] safetensors(String tensor, float a, float b) {
    StringBuilder header =
        new StringBuilder(
            "{\"" + tensor + "\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}");
    while (header.length() % 8 != 0) {
      header.append(' ');
    }
    byte[] h = utf8(header.toString());
    return ByteBuffer.allocate(8 + h.length + 8)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putLong(h.length)
        .put(h)
        .putFloat(a)
        .putFloat(b)
        .array();
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
