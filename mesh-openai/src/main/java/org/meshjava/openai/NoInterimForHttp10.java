package org.meshjava.openai;

import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.server.HttpStream;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.Callback;
import org.jspecify.annotations.Nullable;

/**
 * Keeps interim ({@code 1xx}) responses from an HTTP/1.0 client, which has none (RFC 9110 §15.2; a
 * {@code 100-continue} expectation in an HTTP/1.0 request is to be ignored, §10.1.1). Jetty
 * answered such a request's {@code Expect: 100-continue} with {@code 100 Continue} when its body
 * was first read; an HTTP/1.0 proxy in front takes that as the whole response, and then the real
 * one as the response to the next request it forwards on the connection. The interim is dropped as
 * if sent, so the body is read as it arrives and the one final response follows.
 */
final class NoInterimForHttp10 extends HttpStream.Wrapper {
  private NoInterimForHttp10(HttpStream wrapped) {
    super(wrapped);
  }

  /** Wraps {@code request}'s stream when the request is HTTP/1.0; otherwise leaves it. */
  static void install(Request request) {
    if (request.getConnectionMetaData().getHttpVersion() == HttpVersion.HTTP_1_0) {
      request.addHttpStreamWrapper(NoInterimForHttp10::new);
    }
  }

  @Override
  public void send(
      MetaData.Request request,
      MetaData.@Nullable Response response,
      boolean last,
      @Nullable ByteBuffer content,
      Callback callback) {
    if (response != null && HttpStatus.isInformational(response.getStatus())) {
      callback.succeeded();
      return;
    }
    super.send(request, response, last, content, callback);
  }
}
