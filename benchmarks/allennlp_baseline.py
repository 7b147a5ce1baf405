"""AllenNLP's execution strategy for ELMo inference, re-implemented as a benchmark baseline.

AllenNLP (``allennlp.modules.elmo._ElmoBiLm``) cannot be installed next to a current PyTorch,
so this file reproduces *how* it computes, over our parameters, to compare speed on the same
weights and machine. It is not AllenNLP's code; it follows the same steps:

- ``_ElmoCharacterEncoder``: the char CNN runs on **every token position** of the padded batch,
  ``<S>``/``</S>`` and padding included, over all 50 character positions; no deduplication.
- ``ElmoLstm`` + ``LstmCellWithProjection``: sort the batch by length, then a Python loop over
  time per layer and direction; each step multiplies the step's input by ``W_ih`` and the state
  by ``W_hh`` separately, on the rows still running (the batch shrinks as sentences end),
  clips cell and projection, and clones the full-batch state before writing into it.

Its statefulness (carrying LSTM state between calls) is left out: it only adds bookkeeping.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from elmo_tutorial.model.elmo import ELMo, add_sentence_boundaries, remove_sentence_boundaries


def char_encoder(model: ELMo, char_ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Token embeddings of every position, ``<S>``/``</S>`` added: ``(B, T + 2, P)``, mask."""
    cnn = model.bilm.char_cnn
    ids, mask = add_sentence_boundaries(char_ids, char_ids.ne(0).any(-1))  # (B, T + 2, 50)
    B, T, C = ids.shape
    x = F.embedding(ids.view(-1, C), cnn.char_embedding.weight).transpose(1, 2)  # (BT, E, 50)
    act = torch.relu if cnn.config.activation == "relu" else torch.tanh
    features = torch.cat([act(conv(x).max(dim=-1)[0]) for conv in cnn.convs], dim=-1)
    F_ = features.shape[-1]
    for layer in cnn.highway.layers:
        projected = layer(features)
        nonlinear, gate = projected[:, :F_], torch.sigmoid(projected[:, F_:])
        features = gate * features + (1 - gate) * torch.relu(nonlinear)
    return cnn.projection(features).view(B, T, -1), mask


def lstm_cell_layer(layer, inputs, lengths, go_forward, cell_clip, proj_clip):
    """One ``LstmCellWithProjection`` pass over a length-sorted batch (longest first)."""
    B, T, _ = inputs.shape
    C, P = layer.hidden_size, layer.proj_size
    w_ih, w_hh, w_hr = layer.weight_ih_l0, layer.weight_hh_l0, layer.weight_hr_l0
    bias = layer.bias_ih_l0 + layer.bias_hh_l0
    outputs = inputs.new_zeros(B, T, P)
    memory, state = inputs.new_zeros(B, C), inputs.new_zeros(B, P)
    last = B - 1 if go_forward else 0  # rows [0, last] are still running at this step
    for step in range(T):
        index = step if go_forward else T - step - 1
        if go_forward:
            while lengths[last] <= index:
                last -= 1
        else:
            while last < B - 1 and lengths[last + 1] > index:
                last += 1
        previous_memory, previous_state = memory[: last + 1].clone(), state[: last + 1].clone()
        projected_input = F.linear(inputs[: last + 1, index], w_ih)  # (b, 4C)
        projected_state = F.linear(previous_state, w_hh, bias)  # (b, 4C)
        gates = projected_input + projected_state
        i, f, g, o = (gates[:, k * C : (k + 1) * C] for k in range(4))
        new_memory = torch.sigmoid(i) * torch.tanh(g) + torch.sigmoid(f) * previous_memory
        if cell_clip is not None:
            new_memory = torch.clamp(new_memory, -cell_clip, cell_clip)
        output = F.linear(torch.sigmoid(o) * torch.tanh(new_memory), w_hr)  # (b, P)
        if proj_clip is not None:
            output = torch.clamp(output, -proj_clip, proj_clip)
        memory, state = memory.clone(), state.clone()
        memory[: last + 1], state[: last + 1] = new_memory, output
        outputs[: last + 1, index] = output
    return outputs


def bilm_layers(model: ELMo, char_ids: torch.Tensor) -> list[torch.Tensor]:
    """``_ElmoBiLm.forward`` then boundary removal: L + 1 tensors ``(B, T, 2P)``."""
    token_embedding, mask = char_encoder(model, char_ids)  # (B, T + 2, P), (B, T + 2)
    lengths = mask.sum(dim=1)
    sorted_lengths, order = lengths.sort(descending=True)
    masked = mask.unsqueeze(-1).to(token_embedding.dtype)  # (B, T + 2, 1)
    x = (token_embedding * masked).index_select(0, order)  # packing zeroes the padding
    lengths_list = sorted_lengths.tolist()
    config = model.config
    forward, backward, layers = x, x, []
    for k in range(config.n_layers):
        outs = []
        for stack, inp, go_forward in ((model.bilm.forward_lstm, forward, True),
                                       (model.bilm.backward_lstm, backward, False)):
            out = lstm_cell_layer(stack.layers[k], inp, lengths_list, go_forward,
                                  config.cell_clip, config.proj_clip)
            outs.append(out + inp if k > 0 else out)
        forward, backward = outs
        layers.append(torch.cat([forward, backward], dim=-1))
    restore = order.argsort()
    layers = [h.index_select(0, restore) for h in layers]
    layers.insert(0, torch.cat([token_embedding, token_embedding], dim=-1) * masked)
    word_mask = char_ids.ne(0).any(-1)
    return [remove_sentence_boundaries(h, word_mask) for h in layers]
