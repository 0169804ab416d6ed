// The mock's own /swagger.html in Chromium (test/site's launcher, nothing off loopback): it renders under its
// CSP without errors, lists the mock's origin as the first server, and "Try it out" reaches the mock itself,
// same origin, with a demo key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, type Browser } from "../../../scripts/site/helpers.js";
import { policy, startGateway, type TestGateway } from "../../../helpers/mock.js";

let g: TestGateway;
let browser: Browser;
beforeAll(async () => {
  g = await startGateway();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await g?.close();
});

describe("the mock's /swagger.html in a browser", () => {
  it("Try it out with pk_test_demo_pro calls the mock itself and shows the rate-limit headers", async () => {
    const page = await browser.newPage();
    await page.goto(`${g.url}/swagger.html`);
    await page.locator(".servers select").waitFor({ timeout: 20_000 });
    expect(await page.locator(".servers select").inputValue()).toBe(g.url);

    await page.locator("button.authorize").first().click();
    const box = page.locator(".modal-ux .auth-container", { has: page.locator("h4", { hasText: "ApiKeyAuth" }) });
    await box.locator("input").fill("pk_test_demo_pro");
    await box.locator("button.authorize").click();
    await page.locator(".modal-ux button.btn-done").first().click();

    const block = page.locator(`.opblock-get:has(.opblock-summary-path[data-path="/v1/analyses"])`).first();
    await block.locator(".opblock-summary-control").click();
    await block.locator("button.try-out__btn").click();
    await block.locator("button.execute").click();
    const live = block.locator(".live-responses-table");
    await expect.poll(() => live.locator("tbody .response-col_status").first().innerText(), { timeout: 15_000 }).toBe("200");
    const headers = (await live.locator("tbody .response-col_description").first().innerText()).toLowerCase();
    expect(headers).toMatch(new RegExp(`${policy.headers.limit.toLowerCase()}: 150\\b`));

    expect(g.logs.some((l) => / GET \/v1\/analyses(\?\S*)? 200 .* ws_DemoPro00000$/.test(l)), g.logs.join("\n")).toBe(true);
    expect(browser.outside).toEqual([]);
    expect(browser.consoleErrors, browser.consoleErrors.join("\n")).toEqual([]);
    await page.close();
  });
});
