extension ReportPage {
    static let style = """
        body { font: 14px system-ui, sans-serif; margin: 24px; color: #222; }
        h1 { font-size: 20px; } h2 { font-size: 16px; margin: 6px 0; display: inline; } h2.part { display: block; margin-top: 28px; font-size: 18px; }
        table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 2px 10px; text-align: left; border-bottom: 1px solid #eee; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        .ok { color: #1a7f37; } .bad { color: #cf222e; } .fail { color: #cf222e; font-family: monospace; font-size: 12px; }
        details.scenario { border-top: 1px solid #ddd; padding: 8px 0; } details.scenario > summary { cursor: pointer; }
        svg text { font: 11px system-ui, sans-serif; } .ticklabel { text-anchor: middle; fill: #57606a; }
        .tick { stroke: #d0d7de; stroke-width: 1; } .lane { fill: #222; } .changelabel { fill: #0969da; font-size: 10px; }
        .m.change { stroke: #0969da; stroke-dasharray: 4 3; } .m.post, .m.delivery { fill: #8250df; }
        .m.callback { fill: #bf8700; } .m.check, .m.lifecycle { fill: #57606a; }
        .timeline { position: relative; user-select: none; } .timeline button { margin: 4px 0; }
        .legend span { margin-right: 14px; } .legend .hint { color: #57606a; font-size: 12px; }
        .tip { position: fixed; pointer-events: none; background: #fff; border: 1px solid #888; padding: 4px 6px; font: 12px monospace; max-width: 640px; display: none; z-index: 9; white-space: pre-wrap; }
        .cdfs { display: flex; flex-wrap: wrap; gap: 24px; } figure.cdf { margin: 0; } figcaption { font-weight: 600; }
        .errors { background: #ffebe9; border: 1px solid #cf222e; padding: 8px; }
        """

    /// Draws each timeline when its section opens (the failed ones at once, every one with
    /// `#all`), from the `timelines` data: lanes with their labels at the left, ticks at round
    /// times, session-change labels only where they fit, a tooltip for whatever is under the
    /// pointer, a dragged window to zoom into and a double-click to zoom out. Script errors are
    /// shown at the top and kept in `data-script-errors`; the time the first drawing took is
    /// in `data-rendered-ms`.
    static let script = #"""
        (function () {
          "use strict";
          const errors = [];
          window.addEventListener("error", function (event) {
            errors.push(String(event.message));
            document.body.dataset.scriptErrors = errors.join(" | ");
            let banner = document.querySelector(".errors");
            if (!banner) {
              banner = document.createElement("div");
              banner.className = "errors";
              document.body.insertBefore(banner, document.body.firstChild);
            }
            banner.textContent = "This page hit a script error: " + errors.join(" | ");
          });
          const NS = "http://www.w3.org/2000/svg";
          const data = JSON.parse(document.getElementById("timelines").textContent);
          const tip = document.createElement("div");
          tip.className = "tip";
          document.body.appendChild(tip);

          function node(name, attributes, parent) {
            const element = document.createElementNS(NS, name);
            for (const key in attributes) element.setAttribute(key, attributes[key]);
            if (parent) parent.appendChild(element);
            return element;
          }

          function niceStep(range, count) {
            const raw = range / count;
            const power = Math.pow(10, Math.floor(Math.log10(raw)));
            for (const factor of [1, 2, 5, 10]) if (power * factor >= raw) return power * factor;
            return power * 10;
          }

          function time(us) {
            if (Math.abs(us) >= 1e6) return +(us / 1e6).toFixed(3) + " s";
            if (Math.abs(us) >= 1e3) return +(us / 1e3).toFixed(3) + " ms";
            return Math.round(us) + " µs";
          }

          function draw(box) {
            const d = data[+box.dataset.index];
            if (!d) return;
            const view = box.view || [0, Math.max(d.span, 1)];
            box.view = view;
            box.textContent = "";
            const laneHeight = 26, top = 30, labelWidth = 130;
            const width = Math.max(box.clientWidth || 1100, 640);
            const height = top + d.lanes.length * laneHeight + 26;
            const plotWidth = width - labelWidth - 10;
            const x = function (t) { return labelWidth + (t - view[0]) / (view[1] - view[0]) * plotWidth; };
            const svg = node("svg", { width: width, height: height, class: "tl" }, box);
            d.lanes.forEach(function (name, lane) {
              node("rect", { x: 0, y: top + lane * laneHeight, width: width, height: laneHeight,
                             fill: lane % 2 ? "#fff" : "#f6f8fa" }, svg);
              const label = node("text", { x: 4, y: top + lane * laneHeight + 17, class: "lane" }, svg);
              label.textContent = name.length > 18 ? name.slice(0, 17) + "…" : name;
              if (name.length > 18) label.setAttribute("data-tip", name);
            });
            const step = niceStep(view[1] - view[0], Math.max(2, Math.floor(plotWidth / 110)));
            for (let t = Math.ceil(view[0] / step) * step; t <= view[1]; t += step) {
              node("line", { x1: x(t), x2: x(t), y1: top, y2: height - 22, class: "tick" }, svg);
              node("text", { x: x(t), y: height - 8, class: "ticklabel" }, svg).textContent = time(t);
            }
            const clip = "clip-" + box.dataset.index;
            const defs = node("defs", {}, svg);
            node("rect", { x: labelWidth, y: 0, width: plotWidth, height: height }, node("clipPath", { id: clip }, defs));
            const plot = node("g", { "clip-path": "url(#" + clip + ")" }, svg);
            for (const band of d.bands) {
              if (band.end < view[0] || band.start > view[1]) continue;
              const exposure = band.kind === "exposure" || band.kind === "open";
              const y = top + band.lane * laneHeight;
              const opacity = exposure ? (band.kind === "open" ? 0.35 : 0.18)
                                       : (band.count > 1 ? Math.min(1, 0.25 + 0.12 * Math.log2(band.count)) : 1);
              node("rect", { x: x(band.start), y: exposure ? y + 5 : y + 19,
                             width: Math.max(x(band.end) - x(band.start), 2), height: exposure ? 14 : 5,
                             fill: band.kind === "cleanup" ? "#1a7f37" : band.kind.startsWith("cleanup") || exposure ? "#cf222e"
                                   : band.kind === "change" ? "#0969da" : band.kind === "callback" ? "#bf8700"
                                   : band.kind === "post" || band.kind === "delivery" ? "#8250df" : "#57606a",
                             "fill-opacity": opacity, class: "m " + band.kind,
                             "data-tip": band.text + "\n" + time(band.start) + " – " + time(band.end) }, plot);
            }
            let lastLabel = -Infinity;
            for (const mark of d.marks) {
              if (mark.t < view[0] || mark.t > view[1]) continue;
              const cx = x(mark.t), cy = top + mark.lane * laneHeight + 12;
              let shape;
              switch (mark.kind) {
                case "change":
                  shape = node("line", { x1: cx, x2: cx, y1: top - 4, y2: height - 22, class: "m change" }, plot);
                  if (cx - lastLabel > 60) {
                    node("text", { x: cx + 3, y: top - 8, class: "changelabel" }, plot).textContent = "gen " + mark.generation;
                    lastLabel = cx;
                  }
                  break;
                case "post": shape = node("circle", { cx: cx, cy: cy, r: 4, class: "m post" }, plot); break;
                case "delivery":
                  shape = node("path", { d: "M" + (cx - 4) + " " + (cy - 5) + "L" + (cx + 4) + " " + (cy - 5) + "L" + cx + " " + (cy + 2) + "Z",
                                         class: "m delivery" }, plot);
                  break;
                case "callback":
                  shape = node("path", { d: "M" + cx + " " + (cy - 5) + "L" + (cx + 4) + " " + cy + "L" + cx + " " + (cy + 5) + "L" + (cx - 4) + " " + cy + "Z",
                                         class: "m callback" }, plot);
                  break;
                case "check": shape = node("circle", { cx: cx, cy: cy, r: 2, class: "m check" }, plot); break;
                default: shape = node("rect", { x: cx - 1, y: cy - 8, width: 2, height: 16, class: "m lifecycle" }, plot);
              }
              shape.setAttribute("data-tip", mark.text + "\nat " + time(mark.t) + " · generation " + mark.generation);
            }
            if (d.summarised.length) {
              node("text", { x: labelWidth, y: 12, class: "changelabel" }, svg).textContent =
                "storm: " + d.summarised.join(", ") + " drawn as counts per time slice (hover a slice)";
            }
            zoomable(box, svg, x, labelWidth, plotWidth, view, d);
            box.drawn = true;
          }

          function zoomable(box, svg, x, labelWidth, plotWidth, view, d) {
            const at = function (px) { return view[0] + (px - labelWidth) / plotWidth * (view[1] - view[0]); };
            let start = null, selection = null;
            svg.addEventListener("mousedown", function (event) {
              const px = event.offsetX;
              if (px < labelWidth) return;
              start = px;
              selection = node("rect", { x: px, y: 0, width: 0, height: svg.getAttribute("height"),
                                         fill: "#0969da", "fill-opacity": 0.12 }, svg);
            });
            svg.addEventListener("mousemove", function (event) {
              if (start === null) return;
              selection.setAttribute("x", Math.min(start, event.offsetX));
              selection.setAttribute("width", Math.abs(event.offsetX - start));
            });
            svg.addEventListener("mouseup", function (event) {
              if (start === null) return;
              const a = Math.min(start, event.offsetX), b = Math.max(start, event.offsetX);
              start = null;
              selection.remove();
              if (b - a < 5) return;
              box.view = [Math.max(at(a), 0), Math.min(at(b), Math.max(d.span, 1))];
              draw(box);
            });
            svg.addEventListener("dblclick", function () { box.view = null; draw(box); });
            if (view[0] > 0 || view[1] < d.span) {
              const reset = document.createElement("button");
              reset.textContent = "zoom out (showing " + time(view[0]) + " – " + time(view[1]) + ")";
              reset.addEventListener("click", function () { box.view = null; draw(box); });
              box.insertBefore(reset, box.firstChild);
            }
          }

          document.addEventListener("mousemove", function (event) {
            const target = event.target.closest && event.target.closest("[data-tip]");
            if (!target) { tip.style.display = "none"; return; }
            tip.textContent = target.getAttribute("data-tip");
            tip.style.display = "block";
            tip.style.left = Math.min(event.clientX + 12, window.innerWidth - 660) + "px";
            tip.style.top = (event.clientY + 14) + "px";
          });

          const sections = Array.from(document.querySelectorAll("details.scenario"));
          if (location.hash === "#all") sections.forEach(function (section) { section.open = true; });
          function drawIn(section) {
            const box = section.querySelector(".timeline");
            if (box && !box.drawn) draw(box);
          }
          sections.forEach(function (section) {
            section.addEventListener("toggle", function () { if (section.open) drawIn(section); });
            if (section.open) drawIn(section);
          });
          document.querySelectorAll("a[href^='#s-']").forEach(function (link) {
            link.addEventListener("click", function () {
              const section = document.querySelector(link.getAttribute("href"));
              if (section) section.open = true;
            });
          });
          document.body.dataset.renderedMs = Math.round(performance.now());
        })();
        """#
}
