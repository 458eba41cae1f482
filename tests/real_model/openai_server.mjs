// A minimal OpenAI-compatible chat-completions server over node-llama-cpp, for the optional
// real-local-model test (tests/test_reflect_real_model.py). Usage: node openai_server.mjs MODEL.gguf PORT
// It honours response_format json_schema with a grammar where node-llama-cpp can build one.
import http from "node:http";
import {getLlama, LlamaChatSession} from "node-llama-cpp";

const [modelPath, port] = process.argv.slice(2);
const llama = await getLlama({gpu: false, build: "never"});
const model = await llama.loadModel({modelPath});

const server = http.createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url.endsWith("/chat/completions")) {
        res.writeHead(404);
        res.end();
        return;
    }
    let body = "";
    for await (const chunk of req) body += chunk;
    const data = JSON.parse(body);
    console.log(`request ${data.model} response_format=${data.response_format ? data.response_format.type : "none"}`);
    const context = await model.createContext({contextSize: 4096});
    try {
        const system = data.messages.find((m) => m.role === "system");
        const session = new LlamaChatSession({contextSequence: context.getSequence(), systemPrompt: system ? system.content : undefined});
        const options = {maxTokens: Math.min(data.max_tokens || 400, 400), temperature: data.temperature ?? 0.2};
        const format = data.response_format;
        if (format && format.type === "json_schema") {
            try {
                options.grammar = await llama.createGrammarForJsonSchema(format.json_schema.schema);
            } catch (e) {
                res.writeHead(400, {"Content-Type": "application/json"});
                res.end(JSON.stringify({error: `response_format: ${e}`}));
                return;
            }
        }
        const text = await session.prompt(data.messages[data.messages.length - 1].content, options);
        res.writeHead(200, {"Content-Type": "application/json"});
        res.end(JSON.stringify({id: "local", object: "chat.completion", model: data.model,
            choices: [{index: 0, message: {role: "assistant", content: text}, finish_reason: "stop"}]}));
    } catch (e) {
        res.writeHead(500, {"Content-Type": "application/json"});
        res.end(JSON.stringify({error: String(e)}));
    } finally {
        await context.dispose();
    }
});
server.listen(Number(port), "127.0.0.1", () => console.log("ready"));
