// @vitest-environment happy-dom
// useAnalysisEvents (`@avt/api-contract/react`) under React Testing Library, on the in-process simulation: the
// events of an analysis arrive as state, in order, up to the final one; an unknown analysis ends in an error; an
// unmount closes the stream (issue 45, finding 7).
import { act, cleanup, renderHook, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it } from "vitest";
import { createClient, isFinalEvent, unwrap } from "../../src/client/index.js";
import { createSimulation } from "../../src/mock/index.js";
import { useAnalysisEvents } from "../../src/react/index.js";

afterEach(cleanup);

function setup() {
  const sim = createSimulation({ seed: 7 });
  let open = 0;
  const fetch = async (input: Request, init?: RequestInit) => {
    const r = await sim.fetch(input, init);
    if (input.url.includes("/stream")) {
      open++;
      input.signal.addEventListener("abort", () => open--);
    }
    return r;
  };
  const api = createClient({ baseUrl: sim.baseUrl, apiKey: sim.keys.pro, fetch, retry: false });
  return { sim, api, open: () => open };
}

describe("useAnalysisEvents", () => {
  it("gives the analysis's events in order, up to the final one, then done", async () => {
    const { sim, api } = setup();
    const created = await unwrap(api.POST("/v1/analyses", { body: { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" } }));
    const { result } = renderHook(() => useAnalysisEvents(api, created.id));
    expect(result.current.status).toBe("open");
    await act(async () => {
      await sim.clock.advance(120_000);
    });
    await waitFor(() => expect(result.current.status).toBe("done"));
    const { events, last } = result.current;
    expect(events.length).toBeGreaterThan(1);
    expect(last).toBe(events.at(-1));
    expect(isFinalEvent(last!)).toBe(true);
    expect(events.filter((e) => isFinalEvent(e))).toHaveLength(1);
    await sim.close();
  });

  it("an unknown analysis ends in the ApiError of its 404", async () => {
    const { sim, api } = setup();
    const { result } = renderHook(() => useAnalysisEvents(api, "anl_0000000000NOSUCH000000000"));
    await waitFor(() => expect(result.current.status).toBe("error"));
    expect(result.current.error).toMatchObject({ name: "ApiError", status: 404 });
    await sim.close();
  });

  it("unmounting closes the stream; no id opens nothing", async () => {
    const { sim, api, open } = setup();
    const created = await unwrap(api.POST("/v1/analyses", { body: { media_url: "https://media.example.com/calls/q4-review.mp3", media_type: "audio" } }));
    const { result, unmount } = renderHook(() => useAnalysisEvents(api, created.id));
    await waitFor(() => expect(open()).toBe(1));
    expect(result.current.status).toBe("open");
    unmount();
    expect(open()).toBe(0);
    const idle = renderHook(() => useAnalysisEvents(api, undefined));
    expect(idle.result.current.status).toBe("idle");
    await sim.close();
  });
});
