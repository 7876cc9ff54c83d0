package org.meshjava.openai;

import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ByteTokenizer;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;

/**
 * A fake OpenAI-compatible upstream for the upstream engine's tests: Jetty on 127.0.0.1, answering
 * each forwarded chat completions request as its {@link Script} says, as an event stream when the
 * request asks for one and as one JSON reply otherwise.
 */
final class ScriptedUpstream implements AutoCloseable {
  /** How the upstream answers a forwarded request. */
  interface Script {
    /** Writes the event stream answering {@code body}, as the upstream would send it. */
    void stream(JsonNode body, OutputStream out) throws Exception;

    /** The JSON reply answering {@code body}, which asked for no stream. */
    String whole(JsonNode body) throws Exception;

    /** The HTTP status of the answer, streamed or whole. */
    default int status() {
      return 200;
    }
  }

  /** What one forwarded request carried: its body and its {@code Authorization} header, if any. */
  record Forwarded(JsonNode body, @Nullable String authorization) {}

  /** Every request the upstream was sent, in order. */
  final List<Forwarded> forwarded = new CopyOnWriteArrayList<>();

  /** A chat generation asked of an upstream engine directly, and the payload it is handed. */
  record Asked(ServeRequest request, TokenSequence payload) {
    /** One user message {@code prompt}, for at most {@code maxTokens}, at F0 within 1 J. */
    static Asked chat(String prompt, int maxTokens) throws BindingException {
      Prompt text = Prompt.ofChat(Fixture.chat(prompt));
      byte[] bytes = text.bytes();
      return new Asked(
          ServeRequest.generation(
              text.hash(), bytes.length, new ServeBounds(maxTokens, Fidelity.F0, 1_000_000)),
          ByteTokenizer.INSTANCE.encode(bytes));
    }
  }

  /**
   * Writes JSON with every character past ASCII escaped, as some servers send it: a lone surrogate
   * then survives, where written raw it would be no UTF-8.
   */
  private static final ObjectWriter ASCII =
      Fixture.JSON.writer().with(JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature());

  /**
   * A whole chat completion answering {@code content}, with {@code usage} (a JSON object) as its
   * usage report, or none when it is null.
   */
  static String reply(String content, String finish, @Nullable String usage) throws Exception {
    return "{\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":"
        + ASCII.writeValueAsString(content)
        + "},\"finish_reason\":\""
        + finish
        + "\"}]"
        + (usage == null ? "" : ",\"usage\":" + usage)
        + "}";
  }

  private final Server jetty = new Server();
  private final ServerConnector connector = new ServerConnector(jetty);

  ScriptedUpstream(Script script) throws Exception {
    connector.setHost("127.0.0.1");
    jetty.addConnector(connector);
    jetty.setHandler(
        new Handler.Abstract() {
          @Override
          public boolean handle(Request request, Response response, Callback callback)
              throws Exception {
            JsonNode body = Fixture.JSON.readTree(Content.Source.asString(request));
            forwarded.add(new Forwarded(body, request.getHeaders().get(HttpHeader.AUTHORIZATION)));
            response.setStatus(script.status());
            if (body.path("stream").asBoolean()) {
              response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
              try (OutputStream os = Content.Sink.asOutputStream(response)) {
                script.stream(body, os);
              }
              callback.succeeded();
            } else {
              response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
              Content.Sink.write(response, true, script.whole(body), callback);
            }
            return true;
          }
        });
    jetty.start();
  }

  /** The upstream's OpenAI base URI. */
  URI base() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/v1");
  }

  /** The connections open to the upstream now, idle ones included. */
  int openConnections() {
    return connector.getConnectedEndPoints().size();
  }

  @Override
  public void close() throws Exception {
    jetty.stop();
  }
}
