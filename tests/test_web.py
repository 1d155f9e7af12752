"""`finrag serve`: the JSON API with the HTTP client, and the citation viewer in a real headless Chromium."""

from __future__ import annotations

import io
import json
import os
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import SAMPLE, text_pdf

from agent.config import Settings
from agent.ingest.parsing import load_pages
from agent.ingest.pipeline import open_ingestor

pytestmark = pytest.mark.usefixtures("no_yfinance")
LOCAL = "http://127.0.0.1"  # the host a local server answers to

QUESTION = "What were Northwind's capital expenditures in 2024?"
PDF_NAME = "NORTHWIND_2024_10K"


def sample_as_pdf(folder: Path) -> Path:
    """The sample 10-K typeset as a text PDF, so the viewer has a page image to show."""
    folder.mkdir(parents=True, exist_ok=True)
    pages = [p.text for p in load_pages(SAMPLE, Settings.from_env(env={})).pages]
    return text_pdf(folder / f"{PDF_NAME}.pdf", pages)


@pytest.fixture(scope="module")
def pdf_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    work = tmp_path_factory.mktemp("web")
    settings = Settings.from_env(home=work / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(sample_as_pdf(work / "filings")).status == "ingested"
        assert ingestor.ingest_file(SAMPLE.parent / SAMPLE.name).status == "ingested"  # the Markdown original
    return settings


@pytest.fixture(scope="module")
def client(pdf_settings: Settings) -> Iterator:
    from starlette.testclient import TestClient

    from graphs.http import build_app

    with TestClient(build_app(pdf_settings), base_url=LOCAL) as test_client:
        yield test_client


def doc_names(client) -> list[str]:
    return [d["name"] for d in client.get("/api/docs").json()]


def test_the_page_and_the_documents_list(client) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "<title>finrag</title>" in page.text
    assert "innerHTML" not in page.text  # every server string goes into the DOM as text
    names = doc_names(client)
    assert PDF_NAME in names and len(names) == 2


def test_ask_gives_the_cited_figure_with_its_checks(client) -> None:
    result = client.post("/api/ask", json={"question": QUESTION}).json()
    assert "$437 million" in result["answer"]
    (cite,) = [c for c in result["citations"] if "Purchases of property" in c["quote"]][:1]
    assert cite["figure"] == "(437)" and cite["page"] == 7
    assert {c["name"] for c in cite["checks"]} == {"company", "period", "metric", "basis", "scope", "scale", "sanity"}
    assert all(c["passed"] for c in cite["checks"])


CHANGE = "How did Northwind's capital expenditures change from 2023 to 2024?"


def test_each_link_of_an_answer_backs_its_own_figure(client) -> None:
    result = client.post("/api/ask", json={"question": CHANGE}).json()
    text, links = result["answer"], result["links"]
    assert len(links) == text.count(", p. ") == 4
    by_text = {link["text"]: link for link in links}
    assert by_text["$392 million"]["cited"]["figure"] == "(392)"
    assert "FY2023" in " ".join(c["detail"] for c in by_text["$392 million"]["cited"]["checks"])
    assert by_text["$437 million"]["cited"]["figure"] == "(437)"
    assert "FY2024" in " ".join(c["detail"] for c in by_text["$437 million"]["cited"]["checks"])
    change = by_text["$45 million"]
    assert change["computed"] and change["formula"] == "437 - 392 = 45"
    assert sorted(o["figure"] for o in change["operands"]) == ["(392)", "(437)"]
    for link in links:  # each link sits where the answer prints its [doc, p. N]
        assert text[link["at"]:].startswith(f"[{link['cited']['doc']}, p. {link['cited']['page']}]")


def test_a_question_limited_to_some_filings_reads_only_them(client) -> None:
    names = doc_names(client)
    pdf, markdown = sorted(names)  # the same 10-K typeset as a PDF, and its Markdown original
    for only in (pdf, markdown):
        result = client.post("/api/ask", json={"question": QUESTION, "docs": [only]}).json()
        assert "$437 million" in result["answer"] and {c["doc"] for c in result["citations"]} == {only}
    missing = client.post("/api/ask", json={"question": QUESTION, "docs": ["NO_SUCH_FILING"]})
    assert missing.status_code == 404 and "NO_SUCH_FILING" in missing.json()["error"]


def test_threads_are_listed_and_come_back_with_their_linked_answers(client) -> None:
    thread = client.post("/api/threads").json()["thread_id"]
    client.post("/api/ask", json={"question": QUESTION, "thread_id": thread})
    client.post("/api/ask", json={"question": CHANGE, "thread_id": thread})
    listed = client.get("/api/threads").json()["threads"]
    mine = next(t for t in listed if t["thread_id"] == thread)
    assert mine["title"] == QUESTION and mine["turns"] == 2 and listed[0]["thread_id"] == thread
    results = client.get(f"/api/threads/{thread}").json()["results"]
    assert [r["question"] for r in results] == [QUESTION, CHANGE]
    assert results[1]["links"][0]["computed"] and results[0]["links"][0]["cited"]["figure"] == "(437)"


def test_ask_stream_reports_each_node_then_the_result(client) -> None:
    response = client.post("/api/ask/stream", json={"question": QUESTION})
    events = [json.loads(line) for line in response.text.splitlines()]
    nodes = [e["node"] for e in events if e["event"] == "progress"]
    assert nodes[0] == "preprocess" and any(n.startswith("deep_retrieval/") for n in nodes) and "answer" in nodes
    assert events[-1]["event"] == "result" and "$437 million" in events[-1]["result"]["answer"]
    assert "== candidates" in events[-1]["trace_text"]  # the audit trace, readable


def test_bad_questions_get_a_clear_error(client) -> None:
    blank = client.post("/api/ask", json={"question": "  "})
    assert blank.status_code == 400 and blank.json()["error"].startswith("question:")
    assert client.post("/api/ask", content=b"not json").status_code == 400
    streamed = client.post("/api/ask/stream", json={"question": ""})  # refused before any stream starts
    assert streamed.status_code == 400 and streamed.json()["error"].startswith("question:")


def test_threads_keep_their_turns(client) -> None:
    thread = client.post("/api/threads").json()["thread_id"]
    client.post("/api/ask", json={"question": QUESTION, "thread_id": thread})
    second = client.post("/api/ask", json={"question": "what about 2023?", "thread_id": thread}).json()
    assert "$392 million" in second["answer"]
    turns = client.get(f"/api/threads/{thread}").json()
    assert [t["question"] for t in turns["turns"]] == [QUESTION, "what about 2023?"]


def test_threads_are_answered_at_once_and_turns_of_one_thread_in_order(client, monkeypatch) -> None:
    assistant = client.app.state.finrag.assistant
    real_ask, lock = assistant.ask, threading.Lock()
    running: dict[str, int] = {}
    most: dict[str, int] = {"all": 0, "same": 0}

    def watched(question: str, thread_id: str | None = None, docs: list[str] = ()):
        with lock:
            running[thread_id] = running.get(thread_id, 0) + 1
            most["all"] = max(most["all"], sum(running.values()))
            most["same"] = max(most["same"], running[thread_id])
        try:
            time.sleep(0.3)  # long enough for the other requests to arrive while this one runs
            return real_ask(question, thread_id=thread_id, docs=docs)
        finally:
            with lock:
                running[thread_id] -= 1

    monkeypatch.setattr(assistant, "ask", watched)
    asks = [{"question": QUESTION, "thread_id": f"team-{i}"} for i in range(4)]
    asks += [{"question": QUESTION, "thread_id": "one"}, {"question": QUESTION, "thread_id": "one"}]
    answers: list[str] = []

    def post(body: dict) -> None:
        answers.append(client.post("/api/ask", json=body).json()["answer"])

    workers = [threading.Thread(target=post, args=(body,)) for body in asks]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=120)
    assert len(answers) == len(asks) and all("$437 million" in a for a in answers)
    assert most["all"] > 1  # different conversations did not wait for each other
    assert most["same"] == 1  # the two turns of thread "one" ran one after the other


def test_pdf_citation_gives_boxes_for_the_row_and_its_figure(client) -> None:
    from PIL import Image

    quote = "Purchases of property, plant and equipment | 2024: (437) | 2023: (392) | 2022: (355) | (in millions)"
    view = client.get(f"/api/citation/{PDF_NAME}/7", params={"quote": quote, "figure": "(437)"}).json()
    assert view["image"] and view["found"] and view["n_pages"] == 8
    label = next(b for b in view["boxes"] if b["kind"] == "label")
    figure = next(b for b in view["boxes"] if b["kind"] == "figure")
    assert figure["x0"] > label["x1"]  # the figure stands right of its label ...
    assert abs((figure["y0"] + figure["y1"]) / 2 - (label["y0"] + label["y1"]) / 2) < 0.01  # ... on its line
    png = client.get(f"/api/citation/{PDF_NAME}/7.png")
    assert png.headers["content-type"] == "image/png"
    image = Image.open(io.BytesIO(png.content))
    assert image.size == (918, 1188)  # US Letter at the default 1.5x


def test_text_citation_marks_spans_in_the_stored_page(client) -> None:
    names = doc_names(client)
    markdown = next(n for n in names if n != PDF_NAME)
    quote = "Purchases of property, plant and equipment | 2024: (437) | 2023: (392)"
    view = client.get(f"/api/citation/{markdown}/7", params={"quote": quote, "figure": "(437)"}).json()
    assert not view["image"] and view["found"]
    assert [view["text"][a:b] for a, b in view["spans"]] == ["Purchases of property, plant and equipment", "(437)"]


@pytest.mark.parametrize("path", ["/api/citation/NOPE/1", f"/api/citation/{PDF_NAME}/99",
                                  "/api/citation/..%2F..%2Fetc%2Fpasswd/1", f"/api/citation/{PDF_NAME}/0.png"])
def test_only_indexed_pages_are_served(client, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404 and "error" in response.json()


def test_upload_ingests_with_progress(client, pdf_settings: Settings) -> None:
    body = SAMPLE.read_bytes().replace(b"Northwind Instruments", b"Fabrikam Instruments")
    response = client.put("/api/upload", params={"name": "../../FABRIKAM_2024_10K.md"}, content=body)
    events = [json.loads(line) for line in response.text.splitlines()]
    assert {e["stage"] for e in events if e["event"] == "progress"} == {"read", "embed"}
    assert events[-1]["event"] == "result" and events[-1]["report"]["status"] == "ingested"
    assert (Path(pdf_settings.home) / "uploads" / "FABRIKAM_2024_10K.md").is_file()  # its base name only
    assert "FABRIKAM_2024_10K" in doc_names(client)
    bad = client.put("/api/upload", params={"name": "notes.exe"}, content=b"x")
    assert bad.status_code == 400 and ".pdf" in bad.json()["error"]


def test_upload_limits_are_enforced_while_streaming(client, pdf_settings: Settings, monkeypatch) -> None:
    from graphs import http

    monkeypatch.setattr(http, "MAX_UPLOAD_MB", 0.01)  # ~10 kB, so the test streams a small body past it
    uploads = Path(pdf_settings.home) / "uploads"
    before = set(uploads.iterdir()) if uploads.exists() else set()

    def chunks():  # a chunked body: no Content-Length to check up front
        for _ in range(40):
            yield b"x" * 1024

    response = client.put("/api/upload", params={"name": "BIG_2024_10K.md"}, content=chunks())
    assert response.status_code == 413 and "MB" in response.json()["error"]
    assert set(uploads.iterdir()) == before  # the partial file is gone


def test_a_broken_upload_is_refused_and_removed(client, pdf_settings: Settings) -> None:
    response = client.put("/api/upload", params={"name": "BROKEN_2024_10K.pdf"}, content=os.urandom(4096))
    assert response.status_code == 422 and response.json()["status"] == "failed"
    assert str(pdf_settings.home) not in response.text  # no server paths in what a client sees
    assert not (Path(pdf_settings.home) / "uploads" / "BROKEN_2024_10K.pdf").exists()


def test_an_upload_never_replaces_another_companys_file_of_the_same_name(client, pdf_settings: Settings) -> None:
    first = SAMPLE.read_bytes().replace(b"Northwind Instruments", b"Tailspin Toys")
    second = SAMPLE.read_bytes().replace(b"Northwind Instruments", b"Wingtip Traders")
    for body in (first, second):
        response = client.put("/api/upload", params={"name": "report.md"}, content=body)
        result = [json.loads(line) for line in response.text.splitlines()][-1]
        assert result["report"]["status"] == "ingested" and not result["report"]["path"].startswith("/")
    uploads = Path(pdf_settings.home) / "uploads"
    assert (uploads / "report.md").read_bytes() == first and (uploads / "report_2.md").read_bytes() == second
    assert {"report", "report_2"} <= set(doc_names(client))


@pytest.mark.parametrize(
    ("body", "field"),
    [({"question": None}, "question"), ({"question": "What was capex?", "thread_id": 7}, "thread_id"),
     ({}, "question"), ({"question": "x" * 5000}, "question")],
)
def test_request_bodies_are_validated_with_the_field_named(client, body: dict, field: str) -> None:
    for route in ("/api/ask", "/api/ask/stream"):
        response = client.post(route, json=body)
        assert response.status_code == 400 and response.json()["error"].startswith(field), response.text


def test_a_long_upload_name_is_cut_not_a_server_error(client) -> None:
    response = client.put("/api/upload", params={"name": "A" * 300 + ".md"}, content=b"# Notes\n\nRevenue was flat.\n")
    assert response.status_code == 200
    result = [json.loads(line) for line in response.text.splitlines()][-1]
    assert result["report"]["status"] == "ingested" and len(Path(result["report"]["path"]).name) <= 120


def test_serve_binds_to_this_machine_by_default() -> None:
    import argparse

    from cli import serve_cmd

    parser = argparse.ArgumentParser()
    serve_cmd.register(parser.add_subparsers())
    args = parser.parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.port != 2024


def test_langgraph_json_mounts_the_app() -> None:
    root = Path(__file__).resolve().parent.parent
    config = json.loads((root / "langgraph.json").read_text())
    assert config["http"]["app"] == "./graphs/http.py:app"
    from graphs.http import app

    assert {r.path for r in app.routes} >= {"/", "/api/ask", "/api/citation/{doc:str}/{page:int}.png"}


# --- a real browser ------------------------------------------------------------------------------------------
def _browser_missing() -> str:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install 'finrag[test]')"
    if not (shutil.which("chromium") or shutil.which("chromium-browser")) or not shutil.which("chromedriver"):
        return "Debian's chromium and chromium-driver are not installed (the test command installs them in CI)"
    return ""


@pytest.fixture(scope="module")
def served(pdf_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`finrag serve`'s app on a free local port, in this process, over a home that holds only the PDF."""
    work = tmp_path_factory.mktemp("served")
    settings = Settings.from_env(home=work / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(sample_as_pdf(work / "filings")).status == "ingested"
    yield from _serving(settings)


def _serving(settings: Settings) -> Iterator[str]:
    """The app over ``settings`` on a free local port in this process, until the generator is closed."""
    import uvicorn

    from graphs.http import build_app

    try:
        from llm_server import free_port
    except ImportError:  # pragma: no cover
        from tests.llm_server import free_port
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(build_app(settings), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def browser() -> Iterator:
    """Headless Chromium driven by Selenium (skips with the reason when Debian's browser is not installed)."""
    missing = _browser_missing()
    if missing:
        pytest.skip(missing)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1600,1300",
                 "--force-device-scale-factor=1"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=shutil.which("chromedriver")), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_click_a_citation_and_see_the_figure_boxed_on_the_page(served: str, browser, tmp_path: Path) -> None:
    from PIL import Image
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    driver = browser
    wait = WebDriverWait(driver, 120)
    driver.get(served)
    wait.until(lambda d: PDF_NAME in d.find_element(By.ID, "doclist").text)
    driver.find_element(By.ID, "question").send_keys(QUESTION)
    driver.find_element(By.CSS_SELECTOR, "#ask button").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .a a.cite"))
    answer = driver.find_element(By.CSS_SELECTOR, "#messages .a")
    assert "$437 million" in answer.text
    answer.find_element(By.CSS_SELECTOR, "a.cite").click()
    wait.until(lambda d: d.find_element(By.ID, "pagebox").get_attribute("data-ready") == "1")
    assert driver.execute_script("return document.getElementById('pageimg').naturalWidth") > 0
    assert f"{PDF_NAME}, page 7 of 8" in driver.find_element(By.ID, "where").text
    checks = driver.find_element(By.ID, "checks").text
    assert "company:" in checks and "period:" in checks and "scale:" in checks
    figure = driver.find_element(By.CSS_SELECTOR, ".box[data-kind=figure]")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", figure)
    rect = driver.execute_script("const r = arguments[0].getBoundingClientRect(); "
                                 "return [r.left, r.top, r.right, r.bottom];", figure)
    shot = tmp_path / "viewer.png"
    driver.save_screenshot(str(shot))
    image = Image.open(shot).convert("RGB")
    left, top, right, bottom = (round(v) for v in rect)
    assert right - left > 5 and bottom - top > 3
    red = sum(1 for x in range(max(left - 4, 0), right + 5) for y in range(max(top - 4, 0), bottom + 5)
              if (p := image.getpixel((min(x, image.width - 1), min(y, image.height - 1))))[0] > 200
              and p[1] < 80 and p[2] < 80)
    assert red >= 2 * (right - left)  # the box's red outline is drawn where the figure is
    tinted = image.getpixel(((left + right) // 2, top + 2))
    assert tinted[2] < 200  # inside the box the page is tinted yellow (blue channel drops), not plain white


def _ready(driver) -> bool:
    from selenium.webdriver.common.by import By

    return driver.find_element(By.ID, "pagebox").get_attribute("data-ready") == "1"


def _figure_box(driver) -> list[float]:
    return driver.execute_script("const b = document.querySelector('.box[data-kind=figure]'); if (!b) return null;"
                                 "const r = b.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];")


def test_the_viewer_follows_each_figure_keeps_the_thread_and_clears_on_a_refusal(
    served: str, browser, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    driver, wait = browser, WebDriverWait(browser, 120)
    driver.get(served)
    wait.until(lambda d: PDF_NAME in d.find_element(By.ID, "doclist").text)
    # nothing left over before the first answer: no page buttons, no empty image
    for hidden in ("nav", "viewbody", "pagebox", "pageimg"):
        assert not driver.find_element(By.ID, hidden).is_displayed(), hidden
    driver.save_screenshot(str(tmp_path / "1-before.png"))

    # limit the question to the filing, then ask with Enter: the viewer opens the first figure by itself
    driver.find_element(By.CSS_SELECTOR, "#doclist input[type=checkbox]").click()
    assert f"Asking over: {PDF_NAME}" in driver.find_element(By.ID, "scope").text
    driver.find_element(By.ID, "question").send_keys(CHANGE, Keys.ENTER)
    wait.until(lambda d: not d.find_element(By.ID, "askbutton").is_enabled())  # no second ask while pending
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .a a.cite")) == 4)
    wait.until(_ready)
    assert driver.find_element(By.ID, "askbutton").is_enabled()

    links = driver.find_elements(By.CSS_SELECTOR, "#messages .a a.cite")
    boxes = {}
    for figure, year in (("(392)", "FY2023"), ("(437)", "FY2024")):
        link = next(a for a in links if a.get_attribute("data-figure") == figure and not a.get_attribute("data-computed"))
        link.click()
        wait.until(lambda d, f=figure: d.find_element(By.ID, "figure").text and _ready(d)
                   and f in d.find_element(By.ID, "quote").text)
        checks = driver.find_element(By.ID, "checks").text
        assert f"period matched: {year}" in checks, checks
        boxes[year] = _figure_box(driver)
        driver.save_screenshot(str(tmp_path / f"2-{year}.png"))
    assert boxes["FY2023"] and boxes["FY2024"] and boxes["FY2023"][0] > boxes["FY2024"][2]  # its own column

    computed = next(a for a in links if a.get_attribute("data-text") == "$45 million")
    computed.click()
    wait.until(lambda d: "computed: 437 - 392 = 45" in d.find_element(By.ID, "formula").text)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#operands a.cite")) == 2

    # zoom, and paging away and back keeps the box
    width = driver.execute_script("return document.getElementById('pageimg').getBoundingClientRect().width")
    driver.find_element(By.ID, "zoomin").click()
    wider = driver.execute_script("return document.getElementById('pageimg').getBoundingClientRect().width")
    assert wider > width * 1.2
    driver.find_element(By.ID, "next").click()
    wait.until(lambda d: "page 8 of 8" in d.find_element(By.ID, "where").text and _ready(d))
    assert _figure_box(driver) is None
    driver.find_element(By.ID, "prev").click()
    wait.until(lambda d: "page 7 of 8" in d.find_element(By.ID, "where").text and _ready(d))
    assert _figure_box(driver) is not None
    driver.save_screenshot(str(tmp_path / "3-zoomed.png"))

    # a refusal clears the viewer; Esc closes a page
    driver.find_element(By.ID, "question").send_keys("What was Northwind's revenue in Brazil in 2024?", Keys.ENTER)
    wait.until(lambda d: "Not found" in d.find_element(By.ID, "messages").text.split(CHANGE)[-1])
    wait.until(lambda d: not d.find_element(By.ID, "viewbody").is_displayed())
    assert "Not found" in driver.find_element(By.ID, "note").text
    driver.find_element(By.CSS_SELECTOR, "#messages .turn:last-child a.cite[data-closest]").click()
    wait.until(lambda d: _ready(d) and _figure_box(d) is not None)  # the closest evidence boxes its figure too
    driver.find_elements(By.CSS_SELECTOR, "#messages .a a.cite")[0].click()
    wait.until(_ready)
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
    wait.until(lambda d: not d.find_element(By.ID, "viewbody").is_displayed())

    # a reload brings the thread back, every figure still linked, and lists it among past threads
    driver.refresh()
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#messages .turn")) == 2)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#messages .turn:first-child a.cite")) == 4
    options = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#threads option")]
    assert any(o.startswith(CHANGE) for o in options), options
    driver.save_screenshot(str(tmp_path / "4-reloaded.png"))


def test_progress_is_told_in_plain_words_and_the_answer_comes_before_its_links(client) -> None:
    response = client.post("/api/ask/stream", json={"question": CHANGE})
    events = [json.loads(line) for line in response.text.splitlines()]
    plain = [e["plain"] for e in events if e.get("plain")]
    assert plain[0].startswith("Looking for Northwind Instruments, Inc. capital expenditure FY2023")
    assert any(p.startswith("Reading ") for p in plain) and any("checked company, period" in p for p in plain)
    kinds = [e["event"] for e in events]
    assert kinds.index("answer") < kinds.index("result") == len(kinds) - 1


def test_a_page_names_the_number_it_prints() -> None:
    from agent.index.render import printed_page_number

    assert printed_page_number("Table of Contents\nNet sales | 1,200\n45") == "45"
    assert printed_page_number("Page 12\nItem 7") == "12" and printed_page_number("Notes\nF-7") == "F-7"
    assert printed_page_number("Revenue grew.\nFiscal year\n2024") == ""  # a year is no page number


def test_a_server_with_a_token_answers_only_requests_that_carry_it(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from graphs.http import build_app

    settings = Settings.from_env(home=tmp_path / "home", serve_token="s3cret")
    with TestClient(build_app(settings), base_url=LOCAL) as guarded:
        assert guarded.get("/").status_code == 200  # the page holds no data
        refused = guarded.get("/api/docs")
        assert refused.status_code == 401 and "FINRAG_SERVE_TOKEN" in refused.json()["error"]
        assert guarded.get("/api/docs", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert guarded.get("/api/docs", headers={"Authorization": "Bearer s3cret"}).status_code == 200
        assert guarded.get("/api/docs", params={"token": "s3cret"}).status_code == 200
        assert guarded.put("/api/upload", params={"name": "A_2024_10K.md"}, content=b"x").status_code == 401


def test_the_page_colours_meet_wcag_aa() -> None:
    import re

    from graphs.http import PAGE_FILE

    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    def contrast(a: str, b: str) -> float:
        hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
        return (hi + 0.05) / (lo + 0.05)

    css = PAGE_FILE.read_text(encoding="utf-8")
    palette = dict(re.findall(r"--(muted|accent|pass|fail|bg2):\s*(#[0-9a-f]{6})", css))
    for name in ("muted", "accent", "pass", "fail"):
        for ground in ("#ffffff", palette["bg2"]):
            assert contrast(palette[name], ground) >= 4.5, (name, ground)


# ---- issue 59: uploads that say what they are, questions to start with, a viewer for a working day ----------
def test_an_empty_chat_suggests_questions_the_filings_own_statements_answer(client) -> None:
    questions = client.get("/api/suggestions").json()["questions"]
    assert len(questions) == 3 and all("Northwind Instruments" in q for q in questions), questions
    assert not any("Inc." in q for q in questions)  # the name as a question writes it
    for question in questions:
        result = client.post("/api/ask", json={"question": question}).json()
        assert result["citations"] and "Not found" not in result["answer"], (question, result["answer"])


def test_a_computed_figure_is_headed_with_its_sign(client) -> None:
    question = "What was the percentage change in Northwind's interest expense from 2023 to 2024?"
    result = client.post("/api/ask", json={"question": question}).json()
    assert "a decrease of 9.86%" in result["answer"]
    assert [link["text"] for link in result["links"] if link["computed"]] == ["-9.86%"]


def test_a_filing_is_corrected_in_the_page_with_the_checks_of_docs_edit(client) -> None:
    bad = client.patch(f"/api/docs/{PDF_NAME}", json={"fiscal_period": "2024"})
    assert bad.status_code == 400 and "fiscal_period" in bad.json()["error"] and "FY2024" in bad.json()["error"]
    unknown = client.patch(f"/api/docs/{PDF_NAME}", json={"doc_id": "x"})
    assert unknown.status_code == 400 and "doc_id" in unknown.json()["error"]
    assert client.patch(f"/api/docs/{PDF_NAME}", json={}).status_code == 400
    assert client.patch("/api/docs/NO_SUCH_FILING", json={"ticker": "NWI"}).status_code == 404
    edited = client.patch(f"/api/docs/{PDF_NAME}", json={"ticker": "nwi", "form": "10-K"})
    assert edited.status_code == 200 and edited.json()["ticker"] == "NWI"
    assert next(d for d in client.get("/api/docs").json() if d["name"] == PDF_NAME)["ticker"] == "NWI"


def test_an_upload_of_a_filing_already_indexed_names_it_and_can_replace_it(client) -> None:
    before = set(doc_names(client))
    body = SAMPLE.read_bytes() + b"\n\nThis copy was printed for the audit committee.\n"
    response = client.put("/api/upload", params={"name": "northwind-annual-report.md"}, content=body)
    report = [json.loads(line) for line in response.text.splitlines()][-1]["report"]
    assert report["status"] == "ingested" and report["company"].startswith("Northwind Instruments")
    assert report["form"] == "10-K" and report["period"] == "FY2024"
    # the PDF and its Markdown original, and the earlier uploads whose cover names the same company: same form, period
    assert {PDF_NAME, "samples_NORTHWIND_2024_10K"} <= set(report["same_as"]) <= before
    removed = client.delete(f"/api/docs/{report['name']}")
    assert removed.status_code == 200 and removed.json()["removed"] == report["name"]
    assert set(doc_names(client)) == before
    assert client.delete(f"/api/docs/{report['name']}").status_code == 404


def test_a_working_day_in_the_viewer(served: str, browser, tmp_path: Path) -> None:
    """Suggestions in an empty chat, arrow keys that page, zoom that keeps the figure in view, a side panel that
    widens, and an upload that says what it was indexed as and which filing it already is."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait

    driver, wait = browser, WebDriverWait(browser, 120)
    driver.set_window_size(1366, 768)  # a laptop
    driver.get(served)
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#suggest button")) == 3)
    driver.save_screenshot(str(tmp_path / "1-suggestions.png"))
    first = driver.find_element(By.CSS_SELECTOR, "#suggest button")
    asked = first.text
    first.click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#messages .a a.cite") and _ready(d))
    assert not driver.find_elements(By.ID, "suggest") and asked in driver.find_element(By.ID, "messages").text
    assert "Not found" not in driver.find_element(By.CSS_SELECTOR, "#messages .a").text
    where = driver.find_element(By.ID, "where").text
    page = int(where.split("page ")[1].split(" of")[0])

    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    wait.until(lambda d: f"page {page + 1} of" in d.find_element(By.ID, "where").text and _ready(d))
    body.send_keys(Keys.ARROW_LEFT)
    wait.until(lambda d: f"page {page} of" in d.find_element(By.ID, "where").text and _ready(d))
    assert _figure_box(driver) is not None

    for _ in range(4):  # 2x: the figure stays inside the page area's visible rectangle
        driver.find_element(By.ID, "zoomin").click()
    area = driver.execute_script("const r = document.getElementById('pagearea').getBoundingClientRect();"
                                 "return [r.left, r.top, r.right, r.bottom];")
    box = _figure_box(driver)
    assert area[0] <= box[0] and box[2] <= area[2] and area[1] <= box[1] and box[3] <= area[3], (area, box)
    driver.save_screenshot(str(tmp_path / "2-zoomed.png"))

    def aside() -> float:
        return driver.execute_script("return document.getElementById('aside').getBoundingClientRect().width")

    narrow = aside()
    driver.find_element(By.ID, "split").send_keys(Keys.ARROW_LEFT, Keys.ARROW_LEFT)
    assert aside() >= narrow + 70
    driver.save_screenshot(str(tmp_path / "3-wide-panel.png"))

    copy = tmp_path / "northwind-copy.md"
    copy.write_bytes(SAMPLE.read_bytes() + b"\n\nPrinted for the audit committee.\n")
    driver.find_element(By.ID, "file").send_keys(str(copy))
    wait.until(lambda d: d.find_element(By.ID, "docedit").is_displayed())
    note = driver.find_element(By.ID, "doceditnote").text
    assert "already indexed as" in note and PDF_NAME in note, note
    assert driver.find_element(By.ID, "editcompany").get_attribute("value").startswith("Northwind Instruments")
    assert driver.find_element(By.ID, "editperiod").get_attribute("value") == "FY2024"
    period = driver.find_element(By.ID, "editperiod")
    period.clear()
    period.send_keys("2024", Keys.ENTER)
    wait.until(lambda d: "fiscal_period" in d.find_element(By.ID, "editmsg").text)
    driver.find_element(By.ID, "editkeep").click()
    assert "Both are kept" in driver.find_element(By.ID, "editmsg").text
    wait.until(lambda d: "northwind-copy" in d.find_element(By.ID, "doclist").text)
    driver.save_screenshot(str(tmp_path / "4-upload.png"))


def test_every_link_boxes_what_it_cites_a_refusals_closest_evidence_and_each_quoted_sentence(client) -> None:
    refused = client.post("/api/ask", json={"question": "What was Northwind's revenue in Brazil in 2024?"}).json()
    assert "Closest evidence" in refused["answer"]
    (link,) = refused["links"]
    assert link["cited"]["quote"].startswith("Revenue") and link["cited"]["figure"] == "$4,812"
    view = client.get(f"/api/citation/{link['cited']['doc']}/{link['cited']['page']}",
                      params={"quote": link["cited"]["quote"], "figure": link["cited"]["figure"],
                              "chunk": link["cited"]["chunk"]}).json()
    assert view["found"] and (view["spans"] or view["boxes"])
    worded = client.post("/api/ask", json={"question": "Why did Northwind's revenue increase in 2024?"}).json()
    quotes = [link["cited"]["quote"] for link in worded["links"]]
    assert len(quotes) == len(set(quotes)) >= 2  # each quoted sentence its own span
    for link in worded["links"]:
        assert worded["answer"][: link["at"]].rstrip(" .").endswith(link["cited"]["quote"][-30:].rstrip(" ."))


HOSTILE_HTML = """<html><head><title>Contoso Foods 10-K</title><script>fetch('http://evil.example/x')</script>
<style>body { background-image: url(http://evil.example/bg.png) }</style></head>
<body onload="alert(1)">
<p style="text-align:center;font-weight:bold">CONTOSO FOODS CORPORATION</p>
<p>Annual Report on Form 10-K for the fiscal year ended December 31, 2024</p>
<p><img src="http://evil.example/logo.png"> <a href="http://evil.example/">our site</a></p>
<iframe src="http://evil.example/frame"></iframe>
<p>Item 8. Financial Statements</p>
<p>Consolidated Statements of Income (in millions)</p>
<table style="border-collapse:collapse;background-image:url(http://evil.example/t.png)">
<tr><td></td><td style="text-align:right">2024</td><td style="text-align:right">2023</td></tr>
<tr><td onclick="steal()">Net sales</td><td style="text-align:right">8,210</td><td style="text-align:right">7,905</td></tr>
<tr><td>Operating income</td><td style="text-align:right">1,044</td><td style="text-align:right">987</td></tr>
<tr><td>Net income</td><td style="text-align:right">768</td><td style="text-align:right">731</td></tr>
</table>
<p>Net sales increased 3.9% in 2024, driven by higher prices for packaged meals across every region.</p>
</body></html>
"""


@pytest.fixture(scope="module")
def html_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator:
    from starlette.testclient import TestClient

    from graphs.http import build_app

    work = tmp_path_factory.mktemp("filed")
    (work / "CONTOSO_2024_10K.htm").write_text(HOSTILE_HTML, encoding="utf-8")
    settings = Settings.from_env(home=work / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(work / "CONTOSO_2024_10K.htm").status == "ingested"
    with TestClient(build_app(settings), base_url=LOCAL) as test_client:
        yield test_client


def test_an_html_filing_is_shown_as_filed_sanitised_with_the_cited_row_marked(html_client) -> None:
    from lxml import html as lxml_html

    result = html_client.post("/api/ask", json={"question": "What were Contoso's net sales in 2024?"}).json()
    assert "$8,210 million" in result["answer"]
    cited = next(link["cited"] for link in result["links"] if link["cited"]["figure"])
    response = html_client.get(f"/api/filed/{cited['doc']}", params={
        "page": cited["page"], "quote": cited["quote"], "figure": cited["figure"]})
    assert response.status_code == 200
    policy = response.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "sandbox" in policy
    page = response.text.lower()
    for hostile in ("<script", "onload", "onclick", "evil.example", "<iframe", "<img", "<a ", "background-image"):
        assert hostile not in page, hostile
    tree = lxml_html.document_fromstring(response.text)
    (row,) = tree.xpath("//*[@id='finrag-cited']")
    assert row.tag == "tr" and "Net sales" in row.text_content()
    assert [c.text_content() for c in row.xpath(".//*[@class='finrag-figure']")] == ["8,210"]
    assert "text-align:right" in response.text.replace(" ", "")  # the filing's own layout is kept
    sentence = html_client.get(f"/api/filed/{cited['doc']}", params={
        "quote": "Net sales increased 3.9% in 2024, driven by higher prices"}).text
    (marked,) = lxml_html.document_fromstring(sentence).xpath("//*[@id='finrag-cited']")
    assert marked.tag == "p" and marked.text_content().startswith("Net sales increased 3.9%")
    missing = html_client.get("/api/filed/NO_SUCH_FILING")
    assert missing.status_code == 404


def test_the_viewer_shows_an_html_filing_as_filed_at_the_cited_row(browser, tmp_path: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    (tmp_path / "CONTOSO_2024_10K.htm").write_text(HOSTILE_HTML, encoding="utf-8")
    settings = Settings.from_env(home=tmp_path / "home")
    with open_ingestor(settings) as ingestor:
        assert ingestor.ingest_file(tmp_path / "CONTOSO_2024_10K.htm").status == "ingested"
    server = _serving(settings)
    url = next(server)
    try:
        driver, wait = browser, WebDriverWait(browser, 120)
        driver.get(url)
        wait.until(lambda d: "CONTOSO" in d.find_element(By.ID, "doclist").text)
        driver.find_element(By.ID, "question").send_keys("What were Contoso's net sales in 2024?\n")
        wait.until(lambda d: d.find_element(By.ID, "filed").get_attribute("data-ready") == "1")
        frame = driver.find_element(By.ID, "filed")
        assert frame.is_displayed() and not driver.find_element(By.ID, "pagetext").is_displayed()
        assert "#finrag-cited" in frame.get_attribute("src") and frame.get_attribute("sandbox") == ""
        driver.save_screenshot(str(tmp_path / "as-filed.png"))
        driver.find_element(By.ID, "asfiled").click()  # the stored text, page by page, the figure marked
        wait.until(lambda d: d.find_element(By.ID, "pagetext").get_attribute("data-ready") == "1")
        marks = [m.text for m in driver.find_elements(By.CSS_SELECTOR, "#pagetext mark")]
        assert not frame.is_displayed() and "Net sales" in marks and "8,210" in marks
        driver.save_screenshot(str(tmp_path / "as-text.png"))
    finally:
        server.close()
